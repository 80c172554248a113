#include "core/mapping_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace batchbloom::detail {
namespace {

struct Slot {
    std::atomic<std::uintptr_t> begin{0}, end{0};
    std::atomic<bool> lost{false};
};

// A fixed table: the handler may only read memory that never moves or goes away.
constexpr int slot_count = 1024;
Slot slots[slot_count];
struct sigaction previous {};
std::uintptr_t page_size = 4096;

void on_sigbus(int sig, siginfo_t* info, void* context) {
    const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (Slot& s : slots) {
        const std::uintptr_t b = s.begin.load(std::memory_order_acquire);
        if (b == 0 || at < b || at >= s.end.load(std::memory_order_acquire)) continue;
        // A private zero page in place of the page the file no longer has: the faulting read
        // is retried and sees zeros (mmap is a plain system call, safe here in practice).
        void* page = reinterpret_cast<void*>(at & ~(page_size - 1));
        if (::mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            s.lost.store(true, std::memory_order_release);
            return;
        }
        break;
    }
    // Not ours (or no page could be put there): what was installed before decides.
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
        previous.sa_sigaction(sig, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        // The default (or ignoring) action, as if this handler had never been installed: the
        // signal is raised again and delivered once this handler returns.
        ::sigaction(SIGBUS, &previous, nullptr);
        ::raise(sig);
    }
}

void install() {
    page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &previous);
}

std::mutex& slots_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

int guard_mapping(const void* base, std::size_t length) noexcept {
    static std::once_flag installed;
    std::call_once(installed, install);
    const std::lock_guard lock(slots_mutex());  // registrations take turns; the handler only reads
    for (int i = 0; i < slot_count; ++i) {
        if (slots[i].begin.load(std::memory_order_relaxed) != 0) continue;
        slots[i].lost.store(false, std::memory_order_relaxed);
        slots[i].end.store(reinterpret_cast<std::uintptr_t>(base) + length, std::memory_order_relaxed);
        slots[i].begin.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
        return i;
    }
    return -1;
}

void unguard_mapping(int slot) noexcept {
    if (slot < 0) return;
    const std::lock_guard lock(slots_mutex());
    slots[slot].begin.store(0, std::memory_order_release);
}

bool mapping_lost(int slot) noexcept { return slot >= 0 && slots[slot].lost.load(std::memory_order_acquire); }

}  // namespace batchbloom::detail
