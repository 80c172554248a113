#include "bench/bench_json.hpp"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

std::string quoted(std::string_view s) {
    std::string q = "\"";
    for (const char c : s) {
        switch (c) {
            case '"':
                q += "\\\"";
                break;
            case '\\':
                q += "\\\\";
                break;
            case '\n':
                q += "\\n";
                break;
            case '\t':
                q += "\\t";
                break;
            case '\r':
                q += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                    q += strprintf("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                else
                    q += c;
        }
    }
    return q + "\"";
}

/// JSON has no inf or NaN: those become null.
std::string number(double v) { return std::isfinite(v) ? strprintf("%.10g", v) : std::string("null"); }
std::string number(std::uint64_t v) { return std::to_string(v); }

/// Members of one object, written as `"key": value` pairs.
class Object {
public:
    Object& add(std::string_view key, std::string value) {
        members_.emplace_back(quoted(key) + ": " + std::move(value));
        return *this;
    }
    Object& str(std::string_view key, std::string_view value) { return add(key, quoted(value)); }
    std::string text() const {
        std::string s = "{";
        for (std::size_t i = 0; i < members_.size(); ++i) s += (i ? ", " : "") + members_[i];
        return s + "}";
    }

private:
    std::vector<std::string> members_;
};

}  // namespace

std::string bench_json(const MachineInfo& m, const LineReadLimit& limit, std::span<const BenchResult> results,
                       std::span<const FilterTypeBenchRow> filter_types, const BenchRunInfo& run) {
    Object machine;
    machine.str("cpu", m.cpu)
        .add("cores", number(std::uint64_t{m.cores}))
        .add("l1d_bytes", number(m.l1d_bytes))
        .add("l2_bytes", number(m.l2_bytes))
        .add("l3_bytes", number(m.l3_bytes))
        .add("memory_bytes", number(m.memory_bytes))
        .str("compiler", m.compiler)
        .str("transparent_hugepages", m.transparent_hugepages);

    Object lim;
    lim.add("random_line_reads_per_s", number(limit.best.lines_per_s))
        .add("prefetch_distance", number(std::uint64_t{limit.best.distance}))
        .add("buffer_bytes", number(limit.buffer_bytes))
        .add("reads", number(limit.reads))
        .add("repeat", number(std::uint64_t{limit.repeat}))
        .add("huge_page_bytes", limit.huge_page_bytes >= 0 ? std::to_string(limit.huge_page_bytes) : "null")
        .add("threads", "1");
    Object by_distance;
    for (const auto& r : limit.by_distance) by_distance.add(std::to_string(r.distance), number(r.lines_per_s));
    lim.add("reads_per_s_by_prefetch_distance", by_distance.text());
    Object by_l2_distance;
    for (const auto& r : limit.by_l2_distance) by_l2_distance.add(std::to_string(r.distance), number(r.lines_per_s));
    lim.add("reads_per_s_by_two_level_prefetch_distance", by_l2_distance.text())
        .str("prefetch_scheme", limit.best.two_level ? "two-level" : "one-level");

    std::string s = "{\n  \"machine\": " + machine.text() + ",\n  \"limit\": " + lim.text() + ",\n  \"results\": [";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const BenchResult& r = results[i];
        Object o;
        o.str("backend", r.backend)
            .add("threads", number(std::uint64_t{r.threads}))
            .str("path", r.path)
            .add("keys", number(r.keys))
            .add("queries", number(r.queries))
            .str("shape", to_string(r.params.shape))
            .add("k", number(std::uint64_t{r.params.k}))
            .add("blocks", number(r.params.blocks))
            .add("filter_bytes", number(r.params.bytes()))
            .add("bits_per_key", number(r.bits_per_key()))
            .add("insert_keys_per_s", number(r.insert_mkeys_per_s() * 1e6))
            .add("insert_ns_per_key", number(r.insert_ns_per_key()))
            .add("probe_keys_per_s", number(r.probe_mixed_mkeys_per_s() * 1e6))
            .add("probe_ns_per_key", number(r.probe_mixed_ns_per_key()))
            .add("probe_miss_keys_per_s", number(r.probe_absent_mkeys_per_s() * 1e6))
            .add("probe_miss_ns_per_key", number(r.probe_absent_ns_per_key()))
            .add("probe_over_limit",
                 number(limit.best.lines_per_s > 0 ? r.probe_mixed_mkeys_per_s() * 1e6 / limit.best.lines_per_s
                                                   : std::nan("")))
            .add("limit_at_size_lines_per_s", number(r.size_limit_lines_per_s))
            .add("probe_over_limit_at_size", number(r.size_limit_lines_per_s > 0 ? r.probe_over_size_limit() : std::nan("")))
            .add("false_positives", number(r.absent_hits))
            .add("fpr", number(r.measured_fpr()))
            .add("predicted_fpr", number(r.predicted_fpr))
            .add("repeat", number(std::uint64_t{run.repeat}))
            .add("seed", number(run.seed))
            .add("cold", r.cold ? "true" : "false")
            .add("insert_first_ns_per_key", number(r.cold ? r.insert_first_ns_per_key() : std::nan("")))
            .add("probe_first_ns_per_key", number(r.cold ? r.probe_first_ns_per_key() : std::nan("")));
        if (r.path == "automatic") {
            Object chosen;
            chosen.str("insert", r.chosen_insert).str("probe", r.chosen_probe);
            o.add("chosen", chosen.text());
        }
        s += (i ? ",\n    " : "\n    ") + o.text();
    }
    s += results.empty() ? "]" : "\n  ]";
    s += ",\n  \"filter_types\": [";
    for (std::size_t i = 0; i < filter_types.size(); ++i) {
        const FilterTypeBenchRow& r = filter_types[i];
        const double keys = double(r.keys), queries = double(r.queries);
        Object o;
        o.str("type", r.engine)
            .add("keys", number(r.keys))
            .add("queries", number(r.queries))
            .add("bits_per_key", number(r.bits_per_key))
            .add("k", number(std::uint64_t{r.k}))
            .add("insert_ns_per_key", number(r.insert_seconds * 1e9 / keys))
            .add("probe_ns_per_key", number(r.probe_mixed_seconds * 1e9 / queries))
            .add("probe_miss_ns_per_key", number(r.probe_absent_seconds * 1e9 / queries))
            .add("fpr", number(double(r.absent_hits) / queries))
            .add("predicted_fpr", number(r.predicted_fpr));
        s += (i ? ",\n    " : "\n    ") + o.text();
    }
    s += filter_types.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return s;
}

}  // namespace batchbloom::cli
