// The scalable filter's file (ScalableFilter): the common header (format/file_header.hpp; bytes
// in docs/format.md), kind "scalable", with stage 0's params and hashing and the stage count as
// its kind field; then the payload: the params (io::ScalableMeta, 48 bytes), per stage its key
// count (u64), and per stage its blocks.
#include <cstring>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "batchbloom/atomic_file.hpp"
#include "batchbloom/scalable.hpp"
#include "filters/scalable_stages.hpp"
#include "filters/storage.hpp"
#include "format/file_io.hpp"

namespace batchbloom {

void ScalableFilter::save(std::ostream& out) const {
    if (stages_.empty()) detail::throw_moved_from("save");
    const auto meta = io::encode(io::ScalableMeta{.initial_capacity = params_.initial_capacity,
                                                  .initial_fpr = params_.initial_fpr,
                                                  .growth = params_.growth,
                                                  .tightening = params_.tightening,
                                                  .stage_count = stages_.size(),
                                                  .stage_hashing = stages_remixed_ ? 1u : 0u});
    std::vector<std::span<const std::byte>> pieces{meta, std::as_bytes(std::span(sizes_))};
    for (const auto& s : stages_) pieces.push_back(s.bytes());
    io::write_filter(out, io::FileHeader::scalable(stages_.front().params(), hashing_, key_kinds_, stages_.size()), pieces);
}

void ScalableFilter::save(const std::filesystem::path& path) const {
    if (stages_.empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [&](std::ostream& out) { save(out); });
}

ScalableFilter ScalableFilter::load(std::istream& stream) {
    return io::load_stream<ScalableFilter>(stream, [](std::istream& in) -> ScalableFilter {
        using detail::max_stages;
        constexpr std::size_t meta_bytes = io::scalable_meta_size;
        const auto h = io::read_header(in, FileKind::scalable);
        const std::uint64_t stages = h.stage_count();
        if (stages == 0 || stages > max_stages)
            throw FormatError("corrupt header: " + std::to_string(stages) + " stages (1 to " +
                              std::to_string(max_stages) + " allowed)");
        if (h.payload_bytes < meta_bytes + 8 * stages)
            throw FormatError("corrupt header: payload length " + std::to_string(h.payload_bytes) + " is too short");
        // The stage parameters come from the payload, so all of it is read and checked first.
        io::PayloadReader reader(in, h);
        const auto payload = reader.read_rest();
        reader.finish();
        const io::ScalableMeta meta = io::decode_scalable_meta(payload);
        ScalableParams p;
        p.initial_capacity = meta.initial_capacity;
        p.initial_fpr = meta.initial_fpr;
        p.growth = meta.growth;
        p.tightening = meta.tightening;
        p.shape = h.params().shape;
        if (meta.stage_count != stages) throw FormatError("corrupt payload: stage count does not match the header");
        if (meta.stage_hashing > 1)
            throw FormatError("corrupt payload: stage hashing " + std::to_string(meta.stage_hashing) +
                              " (0 or 1 allowed)");
        try {
            // Check the payload length against the stages the params imply before allocating any.
            p.validate();
            std::vector<Params> stage_params;  // sizing a stage takes milliseconds: once per stage
            std::uint64_t expected = meta_bytes + 8 * stages;
            for (std::size_t i = 0; i < stages; ++i) {
                stage_params.push_back(detail::stage_params(p, i));
                expected += stage_params.back().bytes();
                // Stop sizing once the stages outgrow the payload: a corrupt stage count or
                // capacity would otherwise size up to 64 stages for nothing.
                if (expected > h.payload_bytes)
                    throw FormatError("corrupt header: payload length " + std::to_string(h.payload_bytes) +
                                      ", but the first " + std::to_string(i + 1) + " of " + std::to_string(stages) +
                                      " stages take " + std::to_string(expected) + " bytes");
                if (i == 0 && stage_params.front() != h.params())
                    throw FormatError("corrupt header: stage 0 parameters do not match the scalable parameters");
            }
            if (expected != h.payload_bytes)
                throw FormatError("corrupt header: payload length " + std::to_string(h.payload_bytes) + ", but the " +
                                  std::to_string(stages) + " stages take " + std::to_string(expected) + " bytes");
            ScalableFilter f(p, h.hashing(), stage_params.front());
            f.key_kinds_ = h.key_kinds;
            f.stages_remixed_ = meta.stage_hashing == 1;
            const std::byte* sizes = payload.data() + meta_bytes;
            const std::byte* blocks = sizes + 8 * stages;
            for (std::size_t i = 0; i < stages; ++i) {
                if (i > 0) f.add_stage(stage_params[i]);
                std::uint64_t size;
                std::memcpy(&size, sizes + 8 * i, 8);
                const std::uint64_t cap = f.stage_capacity(i);
                // A stage before the last closed at its capacity or, holding at least one key,
                // when its measured FPR reached its target (insert_into_stage, filters/scalable.cpp).
                if (size > cap || (i + 1 < stages && size == 0))
                    throw FormatError("corrupt payload: stage " + std::to_string(i) + " holds " + std::to_string(size) +
                                      " keys, capacity " + std::to_string(cap));
                f.sizes_[i] = size;
                f.stages_[i].add_key_kinds(h.key_kinds);
                auto dst = f.stages_[i].mutable_bytes();
                std::memcpy(dst.data(), blocks, dst.size());
                blocks += dst.size();
            }
            return f;
        } catch (const FormatError&) {
            throw;
        } catch (const Error& e) {
            throw FormatError(std::string("invalid scalable parameters: ") + e.what());
        }
    });
}

ScalableFilter ScalableFilter::load(const std::filesystem::path& path) {
    return io::load_file<ScalableFilter>(path, [](std::istream& in) { return load(in); });
}

}  // namespace batchbloom
