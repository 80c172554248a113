// Uses the installed batchbloom: exits 0 only if an inserted key is found.
#include <batchbloom/batchbloom.hpp>

#include <cstdint>
#include <cstdio>

int main() {
    batchbloom::Filter f(batchbloom::Params::for_fpr(1000, 0.01));
    f.insert(std::uint64_t{42});
    if (!f.contains(std::uint64_t{42})) {
        std::fprintf(stderr, "consumer: inserted key 42 not found\n");
        return 1;
    }
    std::printf("consumer: ok (%llu blocks, k=%u)\n",
                static_cast<unsigned long long>(f.params().blocks), f.params().k);
    return 0;
}
