// Known-answer and property tests for batchbloom's hashing (include/batchbloom/hash.hpp).
//
// The expected values below come from the reference implementations, not from this library:
//   XXH3-64:  Python `xxhash` 3.x (libxxhash 0.8.x), e.g.
//     python3 -c "import xxhash; d=bytes((i*31+7)&0xff for i in range(1000)); print(hex(xxhash.xxh3_64_intdigest(d, 0x9E3779B9)))"
//   MurmurHash3_x64_128: Python `mmh3` 4.x, e.g.
//     python3 -c "import mmh3; v=mmh3.hash128(b'abc', 1, x64arch=True, signed=False); print(hex(v & (2**64-1)), hex(v >> 64))"
//     mmh3.hash128 returns the 16-byte digest read as a little-endian integer, so h1 (the first
//     64-bit word of Appleby's output) is the low 64 bits and h2 the high 64 bits. That convention
//     was checked against an independent Python transcription of MurmurHash3_x64_128 (and equals
//     mmh3.hash64(data, seed, signed=False), which returns (h1, h2)).
//   Integer keys under murmur3: mmh3.hash64(struct.pack('<Q', key), seed, signed=False)[0].
//
// Inputs: a few literal strings, strings with embedded zero bytes, and "pattern(n)": n bytes with
// byte i = (i*31 + 7) & 0xff, chosen at XXH3's and Murmur3's length boundaries.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "batchbloom/backend.hpp"
#include "batchbloom/environment.hpp"
#include "batchbloom/error.hpp"
#include "batchbloom/filter.hpp"
#include "batchbloom/hash.hpp"
#include "batchbloom/params.hpp"

namespace {

using namespace std::literals;
using batchbloom::Hashing;
using batchbloom::HashKind;

std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 31 + 7) & 0xff);
    return s;
}

struct Input {
    std::string label;
    std::string bytes;
};

// Row i of the expected-value tables below belongs to inputs()[i].
const std::vector<Input>& inputs() {
    static const std::vector<Input> v = [] {
        std::vector<Input> r = {
            {"empty", ""},
            {"\"a\"", "a"},
            {"\"abc\"", "abc"},
            {"\"hello world\"", "hello world"},
            {"one zero byte", std::string("\0"sv)},
            {"eight zero bytes", std::string(8, '\0')},
            {"a\\0b\\0c", std::string("a\0b\0c"sv)},
            {"binary20", std::string("\x00\x01\x00\x02\x00\x00\xff\x00\x80\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x01"sv)},
        };
        for (std::size_t n : {3, 4, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 240, 241, 1000,
                              1024, 1025, 2049})
            r.push_back({"pattern(" + std::to_string(n) + ")", pattern(n)});
        return r;
    }();
    return v;
}

constexpr std::uint64_t kXxh3Seeds[4] = {0, 1, 0x9E3779B9ULL, 0x0123456789ABCDEFULL};

// xxhash.xxh3_64_intdigest(input, seed) for the four seeds above.
constexpr std::uint64_t kXxh3Expected[][4] = {
    {0x2d06800538d394c2ULL, 0x4dc5b0cc826f6703ULL, 0x64ce21f217f362b1ULL, 0xcc1ca35a1b089c5cULL},  // empty
    {0xe6c632b61e964e1fULL, 0xd2f6d0996f37a720ULL, 0xed836f3f49179506ULL, 0xfcf369f9e7541d1bULL},  // "a"
    {0x78af5f94892f3950ULL, 0x6b4467b443c76228ULL, 0x18ce44bde5a6523dULL, 0x4a2ec311f0e180a4ULL},  // "abc"
    {0xd447b1ea40e6988bULL, 0xb7aeb52a10fdaf2dULL, 0x39fa5a47ac80ab5eULL, 0x3f5ca66db40a4952ULL},  // "hello world"
    {0xc44bdff4074eecdbULL, 0x5eaac1f7b17ef730ULL, 0x6178e078356beb5cULL, 0xd5dd68911c7f195dULL},  // one zero byte
    {0xc77b3abb6f87acd9ULL, 0x9e51ad6d2f3e695cULL, 0xb4dd7d058bd842c5ULL, 0x84c4077b5ba88a78ULL},  // eight zero bytes
    {0x8e4b921768351b24ULL, 0x898c383e3154477eULL, 0x64e2a59e20fbeb61ULL, 0x8d6fc4c7fe0979daULL},  // a\0b\0c
    {0xe8bb392b404c5cc8ULL, 0x2daef5d741e4e0d7ULL, 0xc78910e6f399162eULL, 0xb5a89c3e77aeb763ULL},  // binary20
    {0x15f7093b173d005cULL, 0x2d2f08ad1dcf5855ULL, 0xe4eaddaf71d0efd1ULL, 0x2c39b392abaacc0eULL},  // pattern(3)
    {0xdca012f95811b6b9ULL, 0x147ba1078a952951ULL, 0x0fe8459310aedf82ULL, 0x56ff8d61faf8f3c1ULL},  // pattern(4)
    {0xdec6a9a43575982eULL, 0x93db64e0c78addf0ULL, 0x0b916bafe01d532fULL, 0x32f1df0fb4c56018ULL},  // pattern(8)
    {0xcbe393399f17ffbdULL, 0x9b4ac94407ef94f7ULL, 0x4f2b204d47aa28d8ULL, 0xd2c1a17aaa3efb26ULL},  // pattern(9)
    {0x545e19990471dc37ULL, 0x8a5a63b56a2b5c05ULL, 0xb01239e8e867dcbcULL, 0x3aa1a0dee222e1caULL},  // pattern(15)
    {0x7e484c18d74895d0ULL, 0x5eb10bd46ebeb101ULL, 0xb3eefadcc2895ff6ULL, 0xf6ca25f941ddb47cULL},  // pattern(16)
    {0x208bde5ee2bed407ULL, 0x40ee90e37ff57a2cULL, 0xd712b4abe5bae99cULL, 0xab17ffdb7d9eead9ULL},  // pattern(17)
    {0xa937652b0119ca11ULL, 0x872cb66ea8834617ULL, 0x45ca4cbdbcc7e180ULL, 0x2d0e012e9abce131ULL},  // pattern(31)
    {0x03df0ac5255d1446ULL, 0xb101853dfeaa2516ULL, 0x1dd0af3df3ef3cd7ULL, 0x9dc60494f6ac170dULL},  // pattern(32)
    {0x199a362122d71f46ULL, 0x59e3ea853ec783ebULL, 0xa85ccb801141dcbdULL, 0x41865766beb4a714ULL},  // pattern(33)
    {0x76d4eec1f092847fULL, 0x462e0519c1774bf3ULL, 0xb8cc3c1ecde8fa89ULL, 0xa3b539f70fbbf438ULL},  // pattern(63)
    {0xdd30702ab46b3745ULL, 0xa6c1a8df0ffff23bULL, 0x9c1913464f0610f3ULL, 0x3b2bc8def1bef79dULL},  // pattern(64)
    {0xfab36b851b94ce20ULL, 0xaaa8c39188e70f3aULL, 0x51c706df515a1267ULL, 0xa292e09597319b6aULL},  // pattern(65)
    {0xa915ed6396db8cc0ULL, 0x6a273c568a51af55ULL, 0xf70ecd91bc324052ULL, 0x2c609864ddda1566ULL},  // pattern(127)
    {0xf92b70eaa21a6288ULL, 0x6673c6814e935b97ULL, 0x14712a996032fd34ULL, 0x6652fc6e0bbab624ULL},  // pattern(128)
    {0xf8f76713f2bb60faULL, 0x9638166292586e74ULL, 0x1c21869011d8d9f5ULL, 0x82a748d81e908533ULL},  // pattern(129)
    {0xccc7375172c41f03ULL, 0x8b1fdbbe81e5919eULL, 0x7548f42eb67e59f2ULL, 0x3d7f78749e396490ULL},  // pattern(240)
    {0x0b3b630948ce4a00ULL, 0x74435d0ed97c22f9ULL, 0xc2834d52b6e32ec1ULL, 0x8a0d480f36059169ULL},  // pattern(241)
    {0x989765d0ea7a5ecdULL, 0xb301e308a3550449ULL, 0x35ce1be3cd3532a2ULL, 0x589ff3f3b7b66b7fULL},  // pattern(1000)
    {0x23bc880ebf0d29c6ULL, 0xb5bf4ccc6942b02dULL, 0x9248894fbdddcb38ULL, 0x47af4fe460c9956fULL},  // pattern(1024)
    {0xc09fdfbc398c7d82ULL, 0xc92b70791f0e3d05ULL, 0x4a202108e658f7f8ULL, 0x350929fe64db0243ULL},  // pattern(1025)
    {0x5045460f5d85c275ULL, 0xf923d11b53efda34ULL, 0xc9b4e88511e4a712ULL, 0x67bcd662c8c91246ULL},  // pattern(2049)
};

constexpr std::uint32_t kMurmurSeeds[4] = {0, 1, 0x9E3779B9U, 0xFFFFFFFFU};

// {h1, h2} = {low, high} 64 bits of mmh3.hash128(input, seed, x64arch=True, signed=False).
constexpr std::uint64_t kMurmurExpected[][4][2] = {
    {{0x0000000000000000ULL, 0x0000000000000000ULL}, {0x4610abe56eff5cb5ULL, 0x51622daa78f83583ULL}, {0x52559d2697d52d8eULL, 0xec7543c8e36716afULL}, {0x6af1df4d9d3bc9ecULL, 0x857421121ee6446bULL}},  // empty
    {{0x85555565f6597889ULL, 0xe6b53a48510e895aULL}, {0x47eae1073748cf70ULL, 0x6be0518ad2ed3728ULL}, {0x6741fd8fac6fc1daULL, 0x4e32bb2ec6355876ULL}, {0xbef385faead16340ULL, 0xa9363d237b2ee74cULL}},  // "a"
    {{0xb4963f3f3fad7867ULL, 0x3ba2744126ca2d52ULL}, {0x9c88be4e9a8a61f0ULL, 0xca12c88bf31b256cULL}, {0xcfed97e7bad740dcULL, 0x2343ced2b5ef6c8bULL}, {0x5a2d798580260f18ULL, 0x5bf10e33d36c3789ULL}},  // "abc"
    {{0x533f6046eb7f610eULL, 0xab97467d60eb63b1ULL}, {0xd18e465a6a1e2de0ULL, 0xa83512a45e28fd55ULL}, {0x80bd82d8dd0ac206ULL, 0xb896225ae0e2da3eULL}, {0xd88e17369e012049ULL, 0x1dd0106d00b6b83fULL}},  // "hello world"
    {{0x4610abe56eff5cb5ULL, 0x51622daa78f83583ULL}, {0x0000000000000000ULL, 0x0000000000000000ULL}, {0x8c98a2ab3f350a51ULL, 0x54196495f17a258dULL}, {0x97fa8c007c7250e6ULL, 0x6956901461600097ULL}},  // one zero byte
    {{0x28df63b7cc57c3cbULL, 0xf2557dfcc4e8fe52ULL}, {0x73269217e5476f20ULL, 0xf1fa3fc86728ca0cULL}, {0x6e54d3ad2be8e9a2ULL, 0xd99e452d1cfc7decULL}, {0x8c14b778c9763842ULL, 0xc3b71e85c8351a98ULL}},  // eight zero bytes
    {{0xb68bf8963758062dULL, 0xcc3e1520471250bfULL}, {0xcaf076c8c9426352ULL, 0xf50711856ae70b09ULL}, {0xb2e81c41c50bde4eULL, 0xc9cf24ce6f41892eULL}, {0x8be8a9e885917c1bULL, 0x13b30b6579ec00feULL}},  // a\0b\0c
    {{0x6728a08b73728b93ULL, 0xc76e868861cbedf5ULL}, {0xe583234290268c67ULL, 0x14e7c541a9633745ULL}, {0x73ce172f82e4124fULL, 0x517e36f5335738ceULL}, {0x26df8d4bf8cfa425ULL, 0xb2104be43a778bbbULL}},  // binary20
    {{0x33ff6eda4da0a23bULL, 0x5f905e8bd93c3afbULL}, {0x3e9f94046821fdf3ULL, 0x74d0a8e00e3ef26bULL}, {0xf1b8b2a6abea2f44ULL, 0xb651ee652a172013ULL}, {0xc287ace2e225b314ULL, 0x5138e099bc3103b3ULL}},  // pattern(3)
    {{0x331195913937a3b4ULL, 0x642e0845db611d66ULL}, {0xa8f6af1eb5475be2ULL, 0x4ff83b60d3808dc2ULL}, {0x87307b4e9fd1a44fULL, 0x34075e72f871e423ULL}, {0x9960bda25f94613cULL, 0xdfa20fd63d2bb679ULL}},  // pattern(4)
    {{0xd927130c3ea3af5dULL, 0xeeab4cb4fb7e6832ULL}, {0xf205709a0ece8c3bULL, 0x206807d09bd421eeULL}, {0x651b588626f53419ULL, 0x2b8b43a944bbd48fULL}, {0x56cf5fe314ea54e1ULL, 0x9e0863a641431e9bULL}},  // pattern(8)
    {{0x320f43f3fbfb3be4ULL, 0xa373172dd046f7a2ULL}, {0x616425940fd31ec1ULL, 0x021cda6df7f6bd5cULL}, {0x9465270f1fa0cfdcULL, 0x359c064df44465a9ULL}, {0x2fb2cb1a40205b52ULL, 0x08b2007da5d75620ULL}},  // pattern(9)
    {{0x3775f4b56782ab17ULL, 0x6c299d80b12b415eULL}, {0x87499673a48d37d7ULL, 0x0bd0e0fd2b405adeULL}, {0x981578e06a58b1bcULL, 0xcc173dcfedaaf3cbULL}, {0xb7fe075632c23af2ULL, 0x21aeb31e6c6e6f85ULL}},  // pattern(15)
    {{0x466b79ebf689da14ULL, 0x8c548b02b805858aULL}, {0x927c77d3376549f8ULL, 0x963f2cee2fc573a7ULL}, {0x1fdc26c925a21bb9ULL, 0xcfc7544d59ee3037ULL}, {0x15a053dfed5d7c31ULL, 0x50a3530fc7cab351ULL}},  // pattern(16)
    {{0xeb322f84309de524ULL, 0x082aa01f2728481bULL}, {0xdf111ba1309b05d2ULL, 0x6e02e665b051d4fcULL}, {0xda19e1cca8eed8a6ULL, 0x22c733dd000b2c9aULL}, {0x25019975da292d34ULL, 0x84c65982b4da5ae1ULL}},  // pattern(17)
    {{0x49db93da32960569ULL, 0x90b21e6033dc6c1eULL}, {0xe5d806534e1f23d7ULL, 0xa0b02dd2c6e470c8ULL}, {0xa0c9ba6ffd5af9aeULL, 0xd3827333edae49e9ULL}, {0x8c1c596a01c6d0afULL, 0xe8b385e69fda8fb8ULL}},  // pattern(31)
    {{0x428638cea8126132ULL, 0xf0ca1d512a155d2eULL}, {0xcfa7e72fc0064f12ULL, 0x21544fd0534fe3ccULL}, {0xa7fd18dc0bc75ffcULL, 0x166b2669efe684c8ULL}, {0x4559797b7e03d7c1ULL, 0xa46caa11b44ca067ULL}},  // pattern(32)
    {{0xfa0bc7309230cdebULL, 0x3721c70c96532164ULL}, {0x3393466fa86a0f67ULL, 0x86f3fb35254a5819ULL}, {0xd949724864c1d67bULL, 0x4e6ac73b95ffe78dULL}, {0x6e509713be7c69fcULL, 0x060c204c21adefeeULL}},  // pattern(33)
    {{0xe22e47bdc178ff88ULL, 0xea5ff1f93ac37979ULL}, {0x53d482f6cfcecad7ULL, 0x8cfb0700a8ffcb8cULL}, {0xf61d312219d5bae6ULL, 0x5eaa14397f54cec4ULL}, {0x788c33e2103aef79ULL, 0xd97e9a4d7f2dffe4ULL}},  // pattern(63)
    {{0x1cd09df11a8cc5f0ULL, 0x55be4234d5d78c9dULL}, {0x18b8ecba48bdc2c5ULL, 0xbda308e0c5cd9fb6ULL}, {0x9bc11c0a0b55816aULL, 0x99acb1d71e159736ULL}, {0xebcb9468baf7d213ULL, 0xa3701f3e609c51a7ULL}},  // pattern(64)
    {{0x7ccd3eb450bec104ULL, 0xcc79ce97ca89fa4dULL}, {0xbbf7ce3331b2ac02ULL, 0x81b0221471439ad8ULL}, {0x8fa18757f1fa52e2ULL, 0x5e0f98e10aa38604ULL}, {0xb81a9e54c0f8379aULL, 0xdaf077c9ea7ee7e6ULL}},  // pattern(65)
    {{0x1fdd2b6275152eabULL, 0xf88a6db85af99e05ULL}, {0xff70c529a8e34c6bULL, 0xafe0f28a833759e8ULL}, {0x43dd3be564d2b08fULL, 0x01449130e5c22dc0ULL}, {0x624c94c4c0b28ff4ULL, 0x7d98c084b27277d0ULL}},  // pattern(127)
    {{0xbc55dbc65725662fULL, 0x5e340853a1a2bd7aULL}, {0x18719e259e5da0c4ULL, 0x9698a66cce056a66ULL}, {0x2e4fc2ec4b0defe5ULL, 0x922b5671928ecfc3ULL}, {0xe382f7c80121d8e8ULL, 0x99a1e6a9e2edceb5ULL}},  // pattern(128)
    {{0xd8c4559255418dbfULL, 0x04f5576945d1c9ecULL}, {0xfb0e02ca1384b8c6ULL, 0x921058eb113230aaULL}, {0xbf48e4ba19e2700cULL, 0x3980d856ea92a11eULL}, {0xa7d038afef3b2b74ULL, 0x5d9ea541fa0ca1d8ULL}},  // pattern(129)
    {{0xc2648c943e77a081ULL, 0x79537ed1125bebfaULL}, {0xddaea5d58d70d9edULL, 0xd27b8932c9fcd395ULL}, {0x5ab05517d33f29c1ULL, 0x4ba6a03591dba211ULL}, {0xd0d7214b1376686fULL, 0x1ec5766e4f23cb88ULL}},  // pattern(240)
    {{0xb82a1bc82254c360ULL, 0x7a81894e62b4b65fULL}, {0x47a703cbd5e160f2ULL, 0x8e842f78375cdf1fULL}, {0xbd5dd8a6ac387b43ULL, 0x545b612c5ea56219ULL}, {0x77584dbffc86be0dULL, 0xb334e5b39973428eULL}},  // pattern(241)
    {{0x17fe9d6b899dc945ULL, 0xd3a7aaa6ce34ce29ULL}, {0x29cceedd5ec3fd36ULL, 0x7223da8276af318fULL}, {0xa6b3fd87ae4ae572ULL, 0x20525f1823fa12b0ULL}, {0x62f16254ab9bca0eULL, 0xc0193de6b70febffULL}},  // pattern(1000)
    {{0x81a9a5a4204401e6ULL, 0x81dff2b157e1f185ULL}, {0xc84f5800ca2743deULL, 0xce3a47fe8445db9dULL}, {0xd00e1ee3dd318a65ULL, 0x468c34e98e62a7b4ULL}, {0x43035cc1db9e6051ULL, 0x21f12ebd9137c1aeULL}},  // pattern(1024)
    {{0x0e6045ee8b9f27e6ULL, 0xea66d3af09eafeb3ULL}, {0xdc9ebe6e80bfd4b8ULL, 0xd4d427db8a054b7eULL}, {0xa411d2a052f33a6dULL, 0xefc2e3bcebd1ad82ULL}, {0xec6f197c5d1009d4ULL, 0x64281f70543c639cULL}},  // pattern(1025)
    {{0x31833f01ee2cf656ULL, 0x544f2f739175e484ULL}, {0xc8e161aeaee18a69ULL, 0xcf277d1da001e164ULL}, {0xafa6558d5fd98feaULL, 0x5edff57579004eb2ULL}, {0xd618b98633fdbfe9ULL, 0xd14b3fa4218d00fbULL}},  // pattern(2049)
};

TEST(Hash, InputTableMatchesExpectedTables) {
    ASSERT_EQ(inputs().size(), std::size(kXxh3Expected));
    ASSERT_EQ(inputs().size(), std::size(kMurmurExpected));
    EXPECT_EQ(inputs()[7].bytes.size(), 20u);
    EXPECT_EQ(inputs()[6].bytes.size(), 5u);
}

TEST(Hash, Xxh3KnownAnswers) {
    const auto& in = inputs();
    for (std::size_t r = 0; r < in.size(); ++r) {
        for (std::size_t s = 0; s < 4; ++s) {
            EXPECT_EQ(batchbloom::xxh3_64(in[r].bytes.data(), in[r].bytes.size(), kXxh3Seeds[s]), kXxh3Expected[r][s])
                << "input " << in[r].label << " seed 0x" << std::hex << kXxh3Seeds[s];
        }
    }
}

TEST(Hash, Murmur3KnownAnswers) {
    const auto& in = inputs();
    for (std::size_t r = 0; r < in.size(); ++r) {
        for (std::size_t s = 0; s < 4; ++s) {
            const auto h = batchbloom::murmur3_x64_128(in[r].bytes.data(), in[r].bytes.size(), kMurmurSeeds[s]);
            EXPECT_EQ(h[0], kMurmurExpected[r][s][0]) << "h1, input " << in[r].label << " seed 0x" << std::hex << kMurmurSeeds[s];
            EXPECT_EQ(h[1], kMurmurExpected[r][s][1]) << "h2, input " << in[r].label << " seed 0x" << std::hex << kMurmurSeeds[s];
        }
    }
}

// The hashes must not depend on the alignment of the input (no aligned-load assumptions).
TEST(Hash, UnalignedInputsGiveTheSameHash) {
    const auto& in = inputs();
    for (std::size_t r = 0; r < in.size(); ++r) {
        const std::string& b = in[r].bytes;
        for (std::size_t offset = 1; offset < 8; ++offset) {
            std::vector<unsigned char> buf(b.size() + 8);
            if (!b.empty()) std::memcpy(buf.data() + offset, b.data(), b.size());
            const void* p = buf.data() + offset;
            EXPECT_EQ(batchbloom::xxh3_64(p, b.size(), kXxh3Seeds[2]), kXxh3Expected[r][2]) << in[r].label << " offset " << offset;
            const auto h = batchbloom::murmur3_x64_128(p, b.size(), kMurmurSeeds[2]);
            EXPECT_EQ(h[0], kMurmurExpected[r][2][0]) << in[r].label << " offset " << offset;
            EXPECT_EQ(h[1], kMurmurExpected[r][2][1]) << in[r].label << " offset " << offset;
        }
    }
}

// The length is honoured exactly: hashing a prefix of a longer buffer ignores the bytes after it.
TEST(Hash, OnlyLenBytesAreRead) {
    const std::string long_input = pattern(3000);
    for (std::size_t n : {0, 1, 3, 4, 8, 9, 15, 16, 17, 64, 129, 240, 241, 1000}) {
        const std::string exact = pattern(n);
        EXPECT_EQ(batchbloom::xxh3_64(long_input.data(), n, 7), batchbloom::xxh3_64(exact.data(), n, 7)) << n;
        EXPECT_EQ(batchbloom::murmur3_x64_128(long_input.data(), n, 7), batchbloom::murmur3_x64_128(exact.data(), n, 7)) << n;
    }
}

TEST(Hash, Mix64MatchesSplitMix64Reference) {
    // The first output of Vigna's splitmix64 seeded with 0 is 0xe220a8397b1dcdaf; mix64(0, 0) is
    // exactly that computation.
    static_assert(batchbloom::mix64(0, 0) == 0xe220a8397b1dcdafULL);
    EXPECT_EQ(batchbloom::mix64(0, 0), 0xe220a8397b1dcdafULL);
    // The seed enters as key ^ seed.
    EXPECT_EQ(batchbloom::mix64(0x1234, 0x1234), batchbloom::mix64(0, 0));
    EXPECT_NE(batchbloom::mix64(1, 0), batchbloom::mix64(1, 1));
}

// Flipping one input bit flips each output bit with probability ~1/2, i.e. ~32 bits on average.
TEST(Hash, Mix64Avalanche) {
    std::mt19937_64 rng(0xB10011);
    constexpr int samples = 4000;
    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{0x9E3779B9}}) {
        double total = 0;
        std::array<double, 64> per_bit{};
        for (int t = 0; t < samples; ++t) {
            const std::uint64_t x = rng();
            const std::uint64_t hx = batchbloom::mix64(x, seed);
            for (unsigned b = 0; b < 64; ++b) {
                const int flips = std::popcount(hx ^ batchbloom::mix64(x ^ (std::uint64_t{1} << b), seed));
                per_bit[b] += flips;
                total += flips;
            }
        }
        const double mean = total / (samples * 64.0);
        EXPECT_GE(mean, 31.0) << "seed " << seed;
        EXPECT_LE(mean, 33.0) << "seed " << seed;
        // Per input bit the mean over 4000 samples has a standard deviation of ~0.07 bits.
        for (unsigned b = 0; b < 64; ++b) {
            EXPECT_GE(per_bit[b] / samples, 30.0) << "input bit " << b;
            EXPECT_LE(per_bit[b] / samples, 34.0) << "input bit " << b;
        }
    }
}

std::vector<std::uint64_t> sample_int_keys() {
    std::vector<std::uint64_t> keys = {0, 1, 2, 7, 0xFFFFFFFFULL, 0x100000000ULL, 0xDEADBEEFCAFEBABEULL, ~std::uint64_t{0}};
    std::mt19937_64 rng(42);
    for (int i = 0; i < 200; ++i) keys.push_back(rng());
    return keys;
}

const std::uint64_t kHashSeeds[] = {0, 1, 0x9E3779B9ULL, 0xFFFFFFFFULL};

TEST(HashKey, Xxh3IntegersAreMix64) {
    for (std::uint64_t seed : kHashSeeds) {
        const Hashing h{HashKind::xxh3, seed};
        for (std::uint64_t key : sample_int_keys()) EXPECT_EQ(batchbloom::hash_key(h, key), batchbloom::mix64(key, seed));
    }
    // Any 64-bit seed is valid for xxh3.
    const Hashing big{HashKind::xxh3, 0x0123456789ABCDEFULL};
    EXPECT_EQ(batchbloom::hash_key(big, std::uint64_t{5}), batchbloom::mix64(5, 0x0123456789ABCDEFULL));
}

TEST(HashKey, Xxh3StringsAreXxh3_64) {
    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x9E3779B9}, std::uint64_t{0x0123456789ABCDEF}}) {
        const Hashing h{HashKind::xxh3, seed};
        for (const Input& in : inputs()) {
            EXPECT_EQ(batchbloom::hash_key(h, std::string_view(in.bytes)), batchbloom::xxh3_64(in.bytes.data(), in.bytes.size(), seed))
                << in.label;
        }
    }
    // And against the reference values directly.
    const auto& in = inputs();
    for (std::size_t r = 0; r < in.size(); ++r)
        for (std::size_t s = 0; s < 4; ++s)
            EXPECT_EQ(batchbloom::hash_key(Hashing{HashKind::xxh3, kXxh3Seeds[s]}, std::string_view(in[r].bytes)), kXxh3Expected[r][s])
                << in[r].label;
}

struct MurmurIntCase {
    std::uint64_t key;
    std::uint32_t seed;
    std::uint64_t expected;  // mmh3.hash64(struct.pack('<Q', key), seed, signed=False)[0]
};

constexpr MurmurIntCase kMurmurIntExpected[] = {
    {0x0000000000000000ULL, 0x0U, 0x28df63b7cc57c3cbULL},
    {0x0000000000000000ULL, 0x9e3779b9U, 0x6e54d3ad2be8e9a2ULL},
    {0x0000000000000001ULL, 0x0U, 0x004403b7fb05c44aULL},
    {0x0000000000000001ULL, 0x9e3779b9U, 0x4efe87ba542c05beULL},
    {0x0000000000000007ULL, 0x0U, 0x30e12993257f8fb2ULL},
    {0x0000000000000007ULL, 0x9e3779b9U, 0x60c1ccd8519a2b9eULL},
    {0xdeadbeefcafebabeULL, 0x0U, 0xc22ce2e93a1dc8c1ULL},
    {0xdeadbeefcafebabeULL, 0x9e3779b9U, 0xf744b3d0706599a5ULL},
    {0xffffffffffffffffULL, 0x0U, 0xa0e4b27a1abaed73ULL},
    {0xffffffffffffffffULL, 0x9e3779b9U, 0x65b529891883b3e3ULL},
};

TEST(HashKey, Murmur3IntegersAreMurmurOfLittleEndianBytes) {
    for (const auto& c : kMurmurIntExpected) {
        EXPECT_EQ(batchbloom::hash_key(Hashing{HashKind::murmur3, c.seed}, c.key), c.expected)
            << "key 0x" << std::hex << c.key << " seed 0x" << c.seed;
    }
    for (std::uint64_t seed : kHashSeeds) {
        const Hashing h{HashKind::murmur3, seed};
        for (std::uint64_t key : sample_int_keys()) {
            unsigned char le[8];
            for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(key >> (8 * i));
            EXPECT_EQ(batchbloom::hash_key(h, key), batchbloom::murmur3_x64_128(le, 8, static_cast<std::uint32_t>(seed))[0])
                << "key " << key << " seed " << seed;
        }
    }
}

TEST(HashKey, Murmur3StringsAreMurmurLow64) {
    const auto& in = inputs();
    for (std::size_t r = 0; r < in.size(); ++r) {
        for (std::size_t s = 0; s < 4; ++s) {
            const Hashing h{HashKind::murmur3, kMurmurSeeds[s]};
            EXPECT_EQ(batchbloom::hash_key(h, std::string_view(in[r].bytes)), kMurmurExpected[r][s][0])
                << in[r].label << " seed " << kMurmurSeeds[s];
        }
    }
}

TEST(HashKey, IntegerAndStringKeysAreDifferentDomains) {
    // Not a hard requirement of the API, but the xxh3 integer path must really be mix64 and not
    // XXH3 of the key's bytes (which would give a different value).
    const Hashing h{HashKind::xxh3, 0};
    const std::uint64_t key = 12345;
    EXPECT_EQ(batchbloom::hash_key(h, key), batchbloom::mix64(key, 0));
    EXPECT_NE(batchbloom::hash_key(h, key), batchbloom::xxh3_64(&key, sizeof key, 0));
}

TEST(HashKey, Uint32KeysHashLikeTheirUint64Widening) {
    for (HashKind kind : {HashKind::xxh3, HashKind::murmur3}) {
        const Hashing h{kind, 0x9E3779B9ULL};
        for (std::uint32_t k32 : {0u, 1u, 7u, 0x80000000u, 0xFFFFFFFFu}) {
            const std::uint32_t narrow = k32;
            EXPECT_EQ(batchbloom::hash_key(h, narrow), batchbloom::hash_key(h, std::uint64_t{k32}));
        }

        // Through the filter's 32-bit bulk operations: the same bits as the widened keys.
        const auto params = batchbloom::Params::make(batchbloom::Shape::word512, 64, 8);
        batchbloom::Filter f32(params, h), f64(params, h);
        std::vector<std::uint32_t> k32;
        std::vector<std::uint64_t> k64;
        std::mt19937 rng(7);
        for (int i = 0; i < 300; ++i) {
            const std::uint32_t v = static_cast<std::uint32_t>(rng());
            k32.push_back(v);
            k64.push_back(v);
        }
        f32.insert(std::span<const std::uint32_t>(k32));
        f64.insert(std::span<const std::uint64_t>(k64));
        EXPECT_TRUE(f32 == f64) << batchbloom::to_string(kind);
        for (std::uint32_t v : k32) EXPECT_TRUE(f32.contains(std::uint64_t{v}));
        EXPECT_EQ(f32.hash(std::uint64_t{k32[0]}), batchbloom::hash_key(h, std::uint64_t{k32[0]}));

        // Probing with 32-bit keys gives the same answers as probing with their widening.
        std::vector<std::uint32_t> probe32;
        std::vector<std::uint64_t> probe64;
        for (int i = 0; i < 2000; ++i) {
            const std::uint32_t v = static_cast<std::uint32_t>(rng());
            probe32.push_back(v);
            probe64.push_back(v);
        }
        std::vector<std::uint8_t> out32(probe32.size()), out64(probe64.size());
        f32.contains(std::span<const std::uint32_t>(probe32), std::span<std::uint8_t>(out32));
        f32.contains(std::span<const std::uint64_t>(probe64), std::span<std::uint8_t>(out64));
        EXPECT_EQ(out32, out64);
        EXPECT_EQ(f32.count(std::span<const std::uint32_t>(probe32)), f32.count(std::span<const std::uint64_t>(probe64)));
    }
}

TEST(HashValidate, AcceptsValidHashings) {
    EXPECT_NO_THROW(batchbloom::validate(Hashing{}));
    EXPECT_NO_THROW(batchbloom::validate(Hashing{HashKind::xxh3, ~std::uint64_t{0}}));
    EXPECT_NO_THROW(batchbloom::validate(Hashing{HashKind::murmur3, 0}));
    EXPECT_NO_THROW(batchbloom::validate(Hashing{HashKind::murmur3, 0xFFFFFFFFULL}));
}

TEST(HashValidate, RejectsMurmurSeedAbove32Bits) {
    for (std::uint64_t seed : {std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 1, ~std::uint64_t{0}}) {
        EXPECT_THROW(batchbloom::validate(Hashing{HashKind::murmur3, seed}), batchbloom::Error) << seed;
    }
}

TEST(HashValidate, RejectsUnknownKind) {
    EXPECT_THROW(batchbloom::validate(Hashing{static_cast<HashKind>(9), 0}), batchbloom::Error);
    EXPECT_THROW(batchbloom::validate(Hashing{static_cast<HashKind>(0), 0}), batchbloom::Error);
    EXPECT_THROW(batchbloom::validate(Hashing{static_cast<HashKind>(255), 0}), batchbloom::Error);
}

TEST(HashValidate, FilterConstructorRejectsInvalidHashing) {
    const auto params = batchbloom::Params::make(batchbloom::Shape::word512, 4, 8);
    EXPECT_THROW((void)batchbloom::Filter(params, Hashing{HashKind::murmur3, std::uint64_t{1} << 32}), batchbloom::Error);
    EXPECT_THROW((void)batchbloom::Filter(params, Hashing{static_cast<HashKind>(9), 0}), batchbloom::Error);
}

TEST(HashKindNames, RoundTrip) {
    EXPECT_EQ(batchbloom::to_string(HashKind::xxh3), "xxh3");
    EXPECT_EQ(batchbloom::to_string(HashKind::murmur3), "murmur3");
    for (HashKind k : {HashKind::xxh3, HashKind::murmur3}) EXPECT_EQ(batchbloom::parse_hash_kind(batchbloom::to_string(k)), k);
    EXPECT_EQ(batchbloom::parse_hash_kind("xxh3"), HashKind::xxh3);
    EXPECT_EQ(batchbloom::parse_hash_kind("murmur3"), HashKind::murmur3);
}

TEST(HashKindNames, ParseRejectsUnknownNames) {
    EXPECT_THROW(batchbloom::parse_hash_kind("md5"), batchbloom::Error);
    EXPECT_THROW(batchbloom::parse_hash_kind(""), batchbloom::Error);
    EXPECT_THROW(batchbloom::parse_hash_kind("xxh3 "), batchbloom::Error);
    EXPECT_THROW(batchbloom::parse_hash_kind("murmur"), batchbloom::Error);
    try {
        batchbloom::parse_hash_kind("md5");
    } catch (const batchbloom::Error& e) {
        EXPECT_NE(std::string(e.what()).find("md5"), std::string::npos) << "message should name the value: " << e.what();
    }
}

// hash_keys: every form, on every engine this machine has, gives hash_key of each key, at odd
// lengths (the vector engines' tails) and from unaligned spans; a wrong-sized out is an error.
TEST(HashKeys, EveryFormOnEveryEngineIsHashKeyOfEachKey) {
    std::mt19937_64 rng(7);
    std::vector<std::uint64_t> wide(5003);
    for (auto& k : wide) k = rng();
    std::vector<std::uint32_t> narrow(wide.begin(), wide.end());
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < 777; ++i) strings.push_back(std::to_string(wide[i]).substr(0, i % 23));
    const std::vector<std::string_view> views(strings.begin(), strings.end());
    const char* before = std::getenv("BATCHBLOOM_BACKEND");
    const std::string saved = before != nullptr ? before : "";
    for (const std::string& engine : batchbloom::available_backends()) {
        if (engine == "cuda") continue;  // a CPU function: automatic never resolves to the device
        ASSERT_EQ(setenv("BATCHBLOOM_BACKEND", engine.c_str(), 1), 0);
        batchbloom::reload_environment();
        for (const Hashing h : {Hashing{HashKind::xxh3, 0}, Hashing{HashKind::xxh3, 0x9e3779b9}, Hashing{HashKind::murmur3, 5}}) {
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4097}, std::size_t{5002}}) {
                std::vector<std::uint64_t> out(n), want(n);
                const std::size_t at = n == 5002 ? 1 : 0;  // an unaligned span
                batchbloom::hash_keys(h, std::span<const std::uint64_t>(wide.data() + at, n), out);
                for (std::size_t i = 0; i < n; ++i) want[i] = batchbloom::hash_key(h, wide[at + i]);
                EXPECT_EQ(out, want) << engine << " 64-bit n=" << n;
                batchbloom::hash_keys(h, std::span<const std::uint32_t>(narrow.data() + at, n), out);
                for (std::size_t i = 0; i < n; ++i) want[i] = batchbloom::hash_key(h, std::uint64_t{narrow[at + i]});
                EXPECT_EQ(out, want) << engine << " 32-bit n=" << n;
            }
            std::vector<std::uint64_t> out(strings.size()), want(strings.size());
            for (std::size_t i = 0; i < strings.size(); ++i) want[i] = batchbloom::hash_key(h, std::string_view(strings[i]));
            batchbloom::hash_keys(h, std::span<const std::string>(strings), out);
            EXPECT_EQ(out, want) << engine << " strings";
            std::fill(out.begin(), out.end(), 0);
            batchbloom::hash_keys(h, std::span<const std::string_view>(views), out);
            EXPECT_EQ(out, want) << engine << " string views";
        }
    }
    if (before != nullptr)
        setenv("BATCHBLOOM_BACKEND", saved.c_str(), 1);
    else
        unsetenv("BATCHBLOOM_BACKEND");
    batchbloom::reload_environment();
    std::vector<std::uint64_t> short_out(2);
    EXPECT_THROW(batchbloom::hash_keys(Hashing{}, std::span<const std::uint64_t>(wide.data(), 3), short_out), batchbloom::Error);
}

}  // namespace
