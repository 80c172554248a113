"""Writes bench/RESULTS.md, and README.md's headline table, from the benchmarks' JSON.

    python3 bench/results.py            # regenerate both from the files named in SOURCES
    python3 bench/results.py --check    # exit 1 if either file is not what the JSON gives
    python3 bench/results.py --paths RUN.json [...]   # the batch-path table of your own runs

Each section answers one question with one table, printed beside the command that wrote its
JSON; a section whose JSON is missing says which command makes it. Nothing here is typed in by
hand: to update a figure, rerun its command (on an idle machine) and this script.
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "bench" / "join"))
from report import paired  # noqa: E402 - the join report's own ratio of rounds
BB = "build/tools/batchbloom"

# The commands behind each JSON file (run from the repository root, Release build, idle machine).
SOURCES = {
    "engines": (RESULTS / "engines.json",
                f"{BB} bench --sizes 1M,10M,100M --threads 1,2 --json bench/results/engines.json "
                "--plot bench/results/engines.png"),
    "paths_cold": (RESULTS / "paths_cold.json",
                   f"{BB} bench --sizes 1M,10M --backend auto --threads 1,2 --paths direct,partitioned,auto "
                   "--repeat 6 --cold --json bench/results/paths_cold.json"),
    "paths_warm": (RESULTS / "paths_warm.json",
                   f"{BB} bench --sizes 1M,10M --backend auto --threads 1,2 --paths direct,partitioned,auto "
                   "--repeat 6 --json bench/results/paths_warm.json"),
    "paths_cold_100M": (RESULTS / "paths_cold_100M.json",
                        f"{BB} bench --keys 100M --queries 20M --backend auto --threads 1,2 "
                        "--paths direct,partitioned,auto --repeat 6 --cold --json bench/results/paths_cold_100M.json"),
    "paths_warm_100M": (RESULTS / "paths_warm_100M.json",
                        f"{BB} bench --keys 100M --queries 20M --backend auto --threads 1,2 "
                        "--paths direct,partitioned,auto --repeat 6 --json bench/results/paths_warm_100M.json"),
    "join_cpp": (RESULTS / "join_sf1_cpp.json",
                 "bench/join/run.sh 1 && cp out/join/sf1/cpp.json bench/results/join_sf1_cpp.json "
                 "&& cp out/join/sf1/duckdb.json bench/results/join_sf1_duckdb.json "
                 "&& cp out/join/sf1/machine.json bench/results/join_sf1_machine.json"),
    "join_duckdb": (RESULTS / "join_sf1_duckdb.json", "(with join_cpp)"),
    "join_machine": (RESULTS / "join_sf1_machine.json", "(with join_cpp)"),
    "spark": (RESULTS / "spark_semi_join.jsonl",
              "python bench/spark/star_join.py gen --out out/spark\n"
              "for key in int string; do for b in 200000 2000000; do for m in 0.01 0.1; do\n"
              "  python bench/spark/star_join.py run --data out/spark --key $key --build $b --match $m --reps 5 \\\n"
              "    --variants plain,spark,broadcast,runtime,native,reuse,semi_join --json bench/results/spark_semi_join.jsonl\n"
              "done; done; done"),
    "spark_table": (RESULTS / "spark_semi_join.jsonl",
                    "for key in int string; do for m in 0.01 0.1; do\n"
                    "  python bench/spark/star_join.py run --data out/spark --key $key --build 200000 --match $m \\\n"
                    "    --build-side table --reps 11 --variants plain,spark,broadcast,runtime,native,reuse,semi_join \\\n"
                    "    --json bench/results/spark_semi_join.jsonl\n"
                    "done; done"),
    "spark_fpr": (RESULTS / "spark_fpr.jsonl", "python bench/spark/runtime_filter_fpr.py --json bench/results/spark_fpr.jsonl"),
    "parquet_dataset": (RESULTS / "parquet_dataset.jsonl",
                        "python bench/parquet/dataset_queries.py --data out/spark/fact_200000_1pct "
                        "--cli build/tools/batchbloom --json bench/results/parquet_dataset.jsonl"),
    "semi_join": (RESULTS / "semi_join.jsonl",
                  "python bench/python/semi_join.py --data out/spark --reps 5 --json bench/results/semi_join.jsonl"),
}


def load(name):
    path = SOURCES[name][0]
    if not path.exists():
        return None
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return json.loads(path.read_text())


def f2(v):
    return "-" if v is None else f"{v:.2f}"


def keys_label(n):
    return f"{n / 1e6:g}M" if n >= 1e6 else f"{n / 1e3:g}k"


def mib(n):
    return f"{n / 2**20:.1f}"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if h[-1:] != "<" else "---" for h in head) + "|"]
    out[0] = out[0].replace("<", "")
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def command(name):
    return ["```", SOURCES[name][1], "```"]


def heading(title, what):
    return ["", f"## {title}", "", what, ""]


def missing(name):
    return ["*Not measured yet on this machine: run the command above, then `python3 bench/results.py`.*"]


def compiler_label(version):
    """The bench records the compiler's __VERSION__: Clang's names itself ("Debian Clang 14.0.6"),
    GCC's is the bare version ("12.2.0")."""
    return version if not version[:1].isdigit() else f"GCC {version}"


def machine_lines(run):
    m, lim = run["machine"], run["limit"]
    rate = lim["random_line_reads_per_s"]
    return [f"- CPU: {m['cpu']}, {m['cores']} cores; L2 {mib(m['l2_bytes'])} MiB per core, "
            f"L3 {mib(m['l3_bytes'])} MiB; {m['memory_bytes'] / 2**30:.0f} GiB memory; transparent huge "
            f"pages: {m['transparent_hugepages']}; compiler: {compiler_label(m['compiler'])}.",
            f"- The machine's limit: random 64-byte line reads, one thread, over a "
            f"{mib(lim['buffer_bytes'])} MiB buffer with the best prefetch distance: "
            f"{rate / 1e6:.1f} M lines/s ({1e9 / rate:.2f} ns per line). An out-of-cache probe reads one "
            f"line per key, so this is the speed of light of a probe in the caller's order."]


def engines_table(run, threads):
    rows = []
    for r in sorted((r for r in run["results"] if r["threads"] == threads), key=lambda r: (r["keys"], r["backend"])):
        at_size = r.get("limit_at_size_lines_per_s")
        rows.append([keys_label(r["keys"]), mib(r["filter_bytes"]), r["backend"], f2(r["insert_ns_per_key"]),
                     f2(r["probe_ns_per_key"]), f2(r["probe_miss_ns_per_key"]),
                     f2(1e9 / at_size) if at_size else "-", f2(r.get("probe_over_limit_at_size")),
                     f"{100 * r['fpr']:.3f}% ({100 * r['predicted_fpr']:.3f}%)"])
    return table(["keys", "filter MiB", "engine<", "insert ns/key", "probe ns/key", "probe miss ns/key",
                  "line read ns at size", "probe / limit at size", "FPR (model)"], rows)


def threads_table(run):
    one = {(r["backend"], r["keys"]): r for r in run["results"] if r["threads"] == 1}
    rows = []
    for r in sorted((r for r in run["results"] if r["threads"] == 2), key=lambda r: (r["keys"], r["backend"])):
        base = one.get((r["backend"], r["keys"]))
        if not base:
            continue
        rows.append([keys_label(r["keys"]), r["backend"], f2(base["insert_ns_per_key"]), f2(r["insert_ns_per_key"]),
                     f"{base['insert_ns_per_key'] / r['insert_ns_per_key']:.2f}x", f2(base["probe_ns_per_key"]),
                     f2(r["probe_ns_per_key"]), f"{base['probe_ns_per_key'] / r['probe_ns_per_key']:.2f}x"])
    return table(["keys", "engine<", "insert 1 thread", "insert 2 threads", "speedup", "probe 1 thread",
                  "probe 2 threads", "speedup"], rows)


def types_table(run):
    rows = [[keys_label(r["keys"]), r["type"], f"{r['bits_per_key']:.2f}", r["k"] or "-", f2(r["insert_ns_per_key"]),
             f2(r["probe_ns_per_key"]), f2(r["probe_miss_ns_per_key"]),
             f"{100 * r['fpr']:.3f}% ({100 * r['predicted_fpr']:.3f}%)"]
            for r in run.get("filter_types", [])]
    return table(["keys", "filter type<", "bits/key", "k", "insert ns/key", "probe ns/key", "probe miss ns/key",
                  "FPR (model)"], rows)


def paths_table(runs):
    results = [r for run in runs for r in run["results"]]
    cold = any(r.get("cold") in (True, "true") for r in results)
    order = ["direct", "partitioned", "automatic"]
    head = ["keys", "filter MiB", "engine<", "threads", "path<", "insert ns/key", "probe ns/key"]
    if cold:
        head += ["insert, first call", "probe, first call"]
    rows = []
    for r in sorted(results, key=lambda r: (r["keys"], r["threads"], order.index(r["path"]))):
        path = r["path"]
        if path == "automatic":
            c = r.get("chosen", {})
            path = f"**default** (chose {c.get('insert', '?')} / {c.get('probe', '?')})"
        row = [keys_label(r["keys"]), mib(r["filter_bytes"]), r["backend"], r["threads"], path, f2(r["insert_ns_per_key"]),
               f2(r["probe_ns_per_key"])]
        if cold:
            row += [f2(r.get("insert_first_ns_per_key")), f2(r.get("probe_first_ns_per_key"))]
        rows.append(row)
    return table(head, rows)


def join_table(cpp, duck):
    rows = []
    for join in ("int", "str"):
        for s in (1, 10, 50):
            group = [r for r in cpp if r["join"] == join and r["selectivity"] == s]
            base = next(r for r in group if r["plan"] == "hash join")
            for r in group + [r for r in duck if r["join"] == join and r["selectivity"] == s]:
                rounds = len(r.get("total_ms_runs", []))
                bloom = r["plan"].startswith("bloom+hash")
                used = f"{r['filter_built_runs']} / {r['filtered_runs']} of {rounds}" if bloom else "-"
                rounds_ratio = paired(r)  # None for DuckDB, which runs apart from the rounds
                rows.append([join, f"{s}%", r["plan"], used, f"{r['total_ms']:.1f}",
                             f"{base['total_ms'] / r['total_ms']:.2f}x",
                             "-" if rounds_ratio is None else f"{rounds_ratio:.2f}x"])
    return table(["join key<", "build side selected", "plan<", "filter built / used", "ms (median)",
                  "vs hash join (medians)", "vs hash join (rounds)"], rows)


def join_machine_line(m):
    return (f"Machine of this table: {m['cpu']}, {m['cores']} cores; L2 {mib(m['l2_bytes'])} MiB per core, "
            f"L3 {mib(m['l3_bytes'])} MiB; best engine {m['best_engine']}.")


def spark_table(rows, build_side="scan"):
    groups = {}
    for r in rows:
        if r.get("build_side", "scan") != build_side:
            continue
        if not r.get("answer_ok", True):
            raise SystemExit(f"spark: {r['variant']} gave a wrong answer")
        case = (r.get("key", "int"), r["build_keys"], r["match"])
        groups.setdefault(case, {}).setdefault(r["variant"], []).append(r["wall_s"])
    variants = ["plain", "spark", "broadcast", "runtime", "native", "reuse", "semi_join"]
    out = []
    for (key, b, m), v in sorted(groups.items()):
        med = {x: statistics.median(v[x]) for x in variants if x in v}
        ratio = lambda a, b: f"{med[a] / med[b]:.2f}" if a in med and b in med else "-"  # noqa: E731
        out.append([key, keys_label(b), f"{100 * m:g}%"] + [f"{med[x]:.2f}" if x in med else "-" for x in variants] +
                   [ratio("native", "plain"), ratio("native", "runtime"), ratio("semi_join", "spark")])
    return table(["key<", "build keys", "fact rows matching", "plain (shuffle) join", "Spark's own plan", "broadcast join",
                  "Spark runtime filter", "build_native + filter", "saved filter + filter", "semi_join", "native / plain", "native / runtime",
                  "semi_join / Spark's plan"], out)


def spark_fpr_table(rows):
    out = [[keys_label(r["keys"]), f"{r['runtime_bits'] / 8 / 2**20:.1f}", r["runtime_k"], f"{100 * r['runtime_fpr']:.2f}%",
            f"{r['exact_bits'] / 8 / 2**20:.1f}", r["exact_k"], f"{100 * r['exact_fpr']:.2f}%"] for r in rows]
    return table(["build keys", "runtime filter MiB", "k", "runtime filter FPR", "build_native MiB", "k",
                  "build_native FPR"], out)


def parquet_dataset_table(rows):
    add = next((r for r in rows if r["engine"] == "batchbloom"), None)
    by = {}
    for r in rows:
        if r["engine"] != "batchbloom":
            by.setdefault((r["engine"], r["query"]), {})[r["dataset"]] = r
    out = []
    for (engine, query), d in by.items():
        a, b = d.get("as written"), d.get("with filters")
        if not a or not b:
            continue
        groups = (lambda r: f"{r['row_groups_read']}/{r['row_groups']}" if "row_groups" in r else "-")  # noqa: E731
        out.append([engine, query, f"{1000 * a['seconds']:.1f}", groups(a), f"{1000 * b['seconds']:.1f}", groups(b),
                    f"{a['seconds'] / b['seconds']:.1f}x"])
    lines = table(["engine<", "query (absent keys)<", "ms as written", "row groups read", "ms with filters",
                   "row groups read", "speedup"], out)
    if add:
        lines += ["", f"`parquet add` over the dataset ({add['bytes'] / 2**20:.0f} MiB): {add['seconds']:.2f} s."]
    return lines


def semi_join_table(rows):
    # The guide's own call (no n=) beside n=, in runs that timed both.
    written = any("batchbloom_as_written_s" in r for r in rows)
    out = [[r["engine"], keys_label(r["build_keys"]), f"{100 * r['match']:g}%", f"{r['plain_s']:.3f}",
            f"{r['batchbloom_s']:.3f}", f"{r['plain_s'] / r['batchbloom_s']:.2f}x"]
           + ([f"{r['batchbloom_as_written_s']:.3f}" if "batchbloom_as_written_s" in r else "-"] if written else [])
           for r in sorted(rows, key=lambda r: (r["engine"], r["build_keys"], r["match"]))]
    return table(["engine<", "build keys", "fact rows matching", "engine alone, s", "with batchbloom first, s",
                  "speedup"] + (["without n= (as the guide writes it), s"] if written else []), out)


def results_page():
    engines = load("engines")
    cpp, duck, spark = load("join_cpp"), load("join_duckdb"), load("spark")
    out = ["# Benchmark results", "",
           "Generated by `python3 bench/results.py` from the JSON the benchmarks write (`bench/results/`, "
           "`bench/join/`, `bench/spark/`); each table sits under the command that measured it. Figures are "
           "only comparable within one table: they come from one run on one machine. Why the library is built "
           "the way these figures show is in docs/design.md.", ""]
    out += ["## Machine", ""]
    out += machine_lines(engines) if engines else missing("engines")
    out += ["- The engine and batch-path tables ran on this machine; the join table names its own; the "
            "Spark, Parquet and Python tables come from an earlier development VM (their commands above "
            "them re-measure them)."]
    out += heading("How fast is each engine, by filter size? (one thread)",
                   "Random 64-bit keys, 1% FPR (10.1 bits per key, the default `word512` shape, k = 8), one bulk "
                   "call per phase, best of 3; probes are half hits, 'probe miss' all absent. 'Probe / limit at "
                   "size' is the probe rate over this machine's random line read rate over a buffer the filter's "
                   "size: 1.0 means the probe runs at the speed of the memory holding the filter.") + command("engines")
    out += [""]
    if engines:
        out += engines_table(engines, 1) + ["", "![throughput by filter size](results/engines.png)"]
    else:
        out += missing("engines")
    out += ["", "## What does a second thread give?", "", "The same run as above: ns/key, and the speedup of two threads.", ""]
    out += threads_table(engines) if engines else missing("engines")
    out += ["", "## What do the other filter types cost?", "",
            "The same keys, one thread, from the same run. Classic (k positions over the whole array) and "
            "counting (4-bit counters, erasable) are sized for the whole filter's 1% FPR. Scalable grows from "
            "n/64 keys, and the benchmark sets its first stage's FPR to 1% (each later stage's 0.85 times the one "
            "before), so the FPR column is what its stages add up to.", ""]
    out += types_table(engines) if engines else missing("engines")
    for name, title, what in (("paths_cold", "Cold calls: which batch path does the default take?",
                               "What a program that calls the library between other work sees: before every timed "
                               "call a buffer of 4x the L3 is read, so neither the filter nor the keys start in a "
                               "cache. Median of the calls after the first; the first call of a fresh filter apart "
                               "(where the partitioned path grows its scratch). The default follows a rule over the "
                               "machine's caches (docs/design.md, \"Two batch paths\")."),
                              ("paths_warm", "Warm calls: the batch paths back to back",
                               "The same calls back to back (best of 6).")):
        out += heading(title, what) + command(name) + command(name + "_100M") + [""]
        runs = [r for r in (load(name), load(name + "_100M")) if r]
        out += paths_table(runs) if runs else missing(name)
    out += heading("Does a Bloom filter in front of a hash join pay? (C++ join operator, TPC-H SF 1)",
                   "`lineitem ⋉ orders` on the order key (int) and `partsupp ⋉ part` on the part name (str), the "
                   "build side cut to 1%, 10% or 50% of its rows; end to end (hash table and filter builds and the "
                   "planning included), two threads, beside DuckDB running the same query. Each engine's bloom+hash "
                   "plan is the library's `JoinPlan`: from a sample of the probe side, the host's timing of its own "
                   "table (and, where that says no, of its first batch through it) and this machine's costs it "
                   "builds the filter or not, and where its estimate is borderline "
                   "compares both ways over the join's batches ('filter built / used': in how many of the rounds). "
                   "'always' runs the best engine's filter over every row. 'vs hash join (rounds)' is the median of "
                   "each round's ratio: a round runs every C++ plan, each beside a hash join of its own, so its ratio "
                   "holds both at one moment of a shared machine whose speed drifts.") + command("join_cpp") + [""]
    machine = load("join_machine")
    if machine:
        out += [join_machine_line(machine), ""]
    out += join_table(cpp, duck) if cpp and duck else missing("join_cpp")
    out += ["", "## Spark: a semi join of 20M fact rows, local mode, 2 cores", "",
            "`count(*), sum(amount)` of `fact LEFT SEMI JOIN (dim WHERE attr < B)`, wall seconds, median of 5 rounds after an untimed one "
            "(each round runs the variants in a shuffled order), filter builds included; PySpark 4.3, `local[2]`, Java 17. 'build_native + filter' probes a batchbloom-"
            "built Spark BloomFilter (1% FPR asked, grown to the runtime filter's 8 Mbit where smaller) inside the JVM before a shuffle join; 'saved filter' loads one built once "
            "before the runs (as later queries and jobs reuse a filter) and probes it the same way; 'semi_join' is batchbloom.spark.semi_join "
            "under Spark's defaults (it returns Spark's own plan when the build side would be broadcast). Ratios "
            "below 1 mean batchbloom's path is faster.", ""]
    out += command("spark") + [""]
    out += spark_table(spark) if spark else missing("spark")
    out += ["", "### The same with a build side Spark broadcasts", "",
            "The 200k selected dimension rows written first as a table of their own (`--build-side table`), "
            "which Spark's planner sizes (a few MB) and broadcasts under its defaults. semi_join then returns "
            "Spark's own plan (the same three stages), so its last column is the spread between rounds of the "
            "same sub-second query, plus the 5 ms semi_join takes to decide. Median of 11 rounds.", ""]
    out += command("spark_table") + [""]
    out += spark_table(spark, "table") if any(r.get("build_side") == "table" for r in spark or []) else missing("spark_table")
    sections = (
        ("spark_fpr", "Spark's runtime filter at scale: its size caps against exact sizing", spark_fpr_table,
         "Spark's runtime join filter is BloomFilter.create(min(rows, 4M), min(8 * that, 64 Mbit)) under its "
         "default caps (maxNumItems, maxNumBits), whatever the build side holds; build_native sizes for the "
         "keys at the FPR asked (1% here). Both made bit for bit as Spark makes them, filled with n random "
         "keys, probed with 10M absent ones."),
        ("parquet_dataset", "Parquet datasets: what `parquet add` buys DuckDB and Spark", parquet_dataset_table,
         "A 20M-row dataset (8 files, 24 row groups of 1M rows, a random int64 `key`) as written (no Bloom "
         "filters) and after `batchbloom parquet add DIR --column key`; queries for keys inside every row "
         "group's min/max range that the data does not hold, median of 5. DuckDB's row groups read come from "
         "its profiler."),
        ("semi_join", "PyArrow, Polars and DuckDB: a semi join behind a batchbloom pre-filter", semi_join_table,
         "The same data as the Spark table, in memory; every engine and batchbloom on every core."),
    )
    for name, title, render, what in sections:
        data = load(name)
        out += heading(title, what) + command(name) + [""] + (render(data) if data else missing(name))
    return "\n".join(out) + "\n"


HEAD_BEGIN, HEAD_END = "<!-- headline: generated by bench/results.py -->", "<!-- /headline -->"


def readme_headline(engines):
    """The main job on this CPU: the best engine at each size, one and two threads, beside the limit."""
    best = {}
    for r in engines["results"]:
        k = (r["keys"], r["threads"])
        if k not in best or r["probe_ns_per_key"] < best[k]["probe_ns_per_key"]:
            best[k] = r
    rows = []
    for (keys, t), r in sorted(best.items()):
        at_size = r.get("limit_at_size_lines_per_s")
        rows.append([keys_label(keys), mib(r["filter_bytes"]), t, r["backend"], f2(r["insert_ns_per_key"]),
                     f2(r["probe_ns_per_key"]), f2(1e9 / at_size) if at_size else "-"])
    cpu = engines["machine"]["cpu"]
    lim = engines["limit"]["random_line_reads_per_s"]
    return [HEAD_BEGIN, "",
            f"`batchbloom bench` on {cpu} ({engines['machine']['cores']} cores), 1% FPR, random 64-bit keys, "
            f"ns per key (lower is better). The machine's limit out of cache: one random line read per key, "
            f"{1e9 / lim:.2f} ns; 'line read at size' is that limit for a buffer of the filter's size. "
            "More in [bench/RESULTS.md](bench/RESULTS.md).", ""] + \
        table(["keys", "filter MiB", "threads", "engine<", "insert", "probe", "line read at size"], rows) + ["", HEAD_END]


def readme_text(engines):
    text = (ROOT / "README.md").read_text()
    if HEAD_BEGIN not in text or not engines:
        return text
    pre, rest = text.split(HEAD_BEGIN, 1)
    post = rest.split(HEAD_END, 1)[1]
    return pre + "\n".join(readme_headline(engines)) + post


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that both files are up to date")
    ap.add_argument("--paths", nargs="+", metavar="RUN.json", help="print the batch-path table of these "
                    "`batchbloom bench --paths ... --json` runs instead")
    args = ap.parse_args()
    if args.paths:
        print("\n".join(paths_table([json.loads(Path(p).read_text()) for p in args.paths])))
        return
    want = {ROOT / "bench" / "RESULTS.md": results_page(), ROOT / "README.md": readme_text(load("engines"))}
    stale = [p for p, text in want.items() if p.read_text() != text]
    if args.check:
        for p in stale:
            print(f"{p.relative_to(ROOT)} is not what bench/results.py generates: run python3 bench/results.py",
                  file=sys.stderr)
        sys.exit(1 if stale else 0)
    for p in stale:
        p.write_text(want[p])
        print(f"wrote {p.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
