#!/usr/bin/env python3
"""Fails when a comment or a doc points at something the repository does not hold.

    check_doc_refs.py             # check the repository this file sits in; exit 1 on a dead reference
    check_doc_refs.py --self-test # check that each form below is recognised, on samples

The citation forms recognised, in any tracked source, build or documentation file (C++, CUDA,
Python, CMake, shell and Markdown; a comment's lines are read as one text, so a citation may
wrap):

1. A section of a Markdown file, by heading: the file's path, then a comma or an opening
   parenthesis, then the heading in double quotes:
       docs/design.md, "Two batch paths"
       bench/RESULTS.md ("Spark: a semi join")
       `bench/RESULTS.md`, "Cold calls"
   The quoted text must be a heading of that file or the start of one, ending at a word
   boundary ("Spark: a semi join" cites "Spark: a semi join of 20M fact rows, ..."); backticks
   are ignored on both sides. The path is taken from the repository root, else from the
   citing file's folder.
2. An anchor: a Markdown file's path followed by #anchor, as in a link
   ([results](bench/RESULTS.md#machine)), or a link to an anchor of the same page
   ([below](#batch-paths)). The anchor must be the GitHub slug of one of the file's headings
   (lower case; characters other than letters, digits, '_', '-' and spaces dropped; spaces
   to '-'; a repeated heading's slug gets -1, -2, ...).
3. In Markdown files only, a file path under one of the repository's top folders (src/,
   include/, tests/, tools/, bench/, python/, docs/, cmake/), with or without backticks, and a
   C++/CUDA/Python file name in backticks (`filter.hpp`): the path must exist (file or
   folder); the bare name must be some tracked file's name. `a.hpp/.cpp` names both files;
   `path:12` and `path:12-30` are checked as `path`. Paths with `<`, `*` or `{` (patterns such
   as `kernels_<shape>.cu`) and paths .gitignore ignores (build outputs) are not checked.

Headings are Markdown ATX headings (`#` to `######`) outside fenced code blocks.

PENDING names files whose references are known to be dead and are being fixed in another
change: their failures are printed but do not fail the check, and an entry with no failure
left fails it, so that the list only ever shrinks.
"""
import bisect
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# file -> why it is exempt for now. Remove an entry once its file is fixed (the check says so).
PENDING: dict[str, str] = {}

CODE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".pyi", ".cmake", ".sh", ".in", ".toml"}
CODE_NAMES = {"CMakeLists.txt", "dev"}
TOP_FOLDERS = ("src", "include", "tests", "tools", "bench", "python", "docs", "cmake")

MD_PATH = r"(?:[\w.-]+/)*[\w.-]+\.md"
SECTION = re.compile(r"`?(?P<file>" + MD_PATH + r")`?\s*(?:,|\(|\]\([^)\s]*\),)\s*\"(?P<title>[^\"]{1,200})\"")
ANCHOR = re.compile(r"(?P<file>" + MD_PATH + r")?#(?P<anchor>[\w-]+)")
LINK_ANCHOR = re.compile(r"\]\((?P<file>" + MD_PATH + r")?#(?P<anchor>[\w-]+)\)")
PATH = re.compile(r"(?<![\w/.-])(?P<path>(?:" + "|".join(TOP_FOLDERS) + r")/[\w./<>*{}+-]*)")
BARE_NAME = re.compile(r"`(?P<name>[\w-]+\.(?:hpp|cpp|h|cu|cuh|py))`")
COMMENT_LEAD = re.compile(r"^\s*(?:///?|#+|\*+|/\*+)?\s?")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                             capture_output=True, text=True, check=True).stdout
        return sorted({p for p in out.splitlines() if (root / p).is_file()})
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                      and not any(part.startswith((".", "build")) for part in p.relative_to(root).parts))


def ignored(root, path):
    try:
        return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=root).returncode == 0
    except OSError:
        return False


def headings(text):
    """The ATX headings of a Markdown text, outside fenced code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                out.append(m.group(1))
    return out


def normal(title):
    return " ".join(title.replace("`", "").split())


def slugs(heads):
    seen, out = {}, set()
    for h in heads:
        s = re.sub(r"[^\w\- ]", "", normal(h).lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def joined(text, code):
    """The text with each line's comment markers and indentation folded into one space, so a
    citation wrapped over lines reads as one; and each line's start offset in it."""
    parts, starts, at = [], [], 0
    for line in text.splitlines():
        piece = COMMENT_LEAD.sub("", line, count=1) if code else line.strip()
        starts.append(at)
        parts.append(piece)
        at += len(piece) + 1
    return " ".join(parts), starts


class Checker:
    def __init__(self, root, files, read=None):
        self.root, self.files = root, files
        self.read = read or (lambda p: (root / p).read_text(errors="replace"))
        self.names = {Path(p).name for p in files}
        self.by_name = {}
        for p in files:
            self.by_name.setdefault(Path(p).name, []).append(p)
        self._heads = {}

    def exists(self, path):
        return path in self.files or (self.root / path).exists() or any(f.startswith(path.rstrip("/") + "/")
                                                                          for f in self.files)

    def resolve(self, cited, by):
        for cand in (cited, str(Path(by).parent / cited)):
            cand = str(Path(cand))
            if cand in self.files or (self.root / cand).is_file():
                return cand
        return None

    def heads(self, md):
        if md not in self._heads:
            self._heads[md] = headings(self.read(md))
        return self._heads[md]

    def check_file(self, path):
        text = self.read(path)
        md = path.endswith(".md")
        flat, starts = joined(text, not md)
        line = lambda at: bisect.bisect_right(starts, at)
        errors = []
        for m in SECTION.finditer(flat):
            target = self.resolve(m["file"], path)
            if not target:
                errors.append((line(m.start()), f'cites "{m["title"]}" in {m["file"]}, which does not exist'))
                continue
            title = normal(m["title"])
            if not any(h == title or (h.startswith(title) and not h[len(title)].isalnum())
                       for h in map(normal, self.heads(target))):
                errors.append((line(m.start()), f'cites section "{m["title"]}" of {target}, which has no such heading'))
        for m in (LINK_ANCHOR if md else ANCHOR).finditer(flat):
            if not md and not m["file"]:
                continue  # '#' in code is a preprocessor line or a comment, not an anchor
            target = self.resolve(m["file"], path) if m["file"] else path
            if not target:
                errors.append((line(m.start()), f'links #{m["anchor"]} in {m["file"]}, which does not exist'))
            elif m["anchor"] not in slugs(self.heads(target)):
                errors.append((line(m.start()), f"links {target}#{m['anchor']}, which no heading of it makes"))
        if md:
            errors += self.check_paths(path, text)
        return sorted(errors)

    def check_paths(self, path, text):
        errors = []
        for n, raw in enumerate(text.splitlines(), 1):
            for m in PATH.finditer(raw):
                cited = re.sub(r"[.:,)]+$", "", m["path"])
                if re.search(r"[<*{]", cited):
                    continue
                first, *others = cited.split("/.")
                wanted = [first] + [str(Path(first).with_suffix("." + o)) for o in others]
                for p in wanted:
                    if not self.exists(p) and not ignored(self.root, p):
                        errors.append((n, f"names {p}, which does not exist"))
            for m in BARE_NAME.finditer(raw):
                if m["name"] not in self.names:
                    errors.append((n, f"names `{m['name']}`, which no file of the repository is called"))
        return errors


def scanned(files):
    me = str(Path(__file__).resolve().relative_to(ROOT)) if Path(__file__).resolve().is_relative_to(ROOT) else None
    return [p for p in files if p != me and not p.startswith("tests/data/")
            and (Path(p).suffix in CODE_SUFFIXES or Path(p).name in CODE_NAMES or p.endswith(".md"))]


def run(root):
    files = tracked_files(root)
    checker = Checker(root, set(files))
    failed, pending_hit = False, set()
    for path in scanned(files):
        for n, msg in checker.check_file(path):
            if path in PENDING:
                pending_hit.add(path)
                print(f"{path}:{n}: {msg} (pending: {PENDING[path]})")
            else:
                failed = True
                print(f"{path}:{n}: {msg}", file=sys.stderr)
    for path in sorted(set(PENDING) - pending_hit):
        failed = True
        print(f"{path}: no dead reference left: remove it from PENDING in tests/readme/check_doc_refs.py",
              file=sys.stderr)
    return 1 if failed else 0


def self_test():
    """Each form against a small repository held in memory: what must pass and what must fail."""
    docs = {
        "docs/a.md": "# Title\n\n## Two batch paths\n\n```\n# not a heading\n```\n## Spark: a semi join of 20M rows\n"
                     "## Two batch paths\n",
        "src/x.cpp": "int x;\n",
        "src/y.hpp": "int y;\n",
        "src/x.hpp": "int x;\n",
    }
    good = {
        "src/g1.cpp": '// see docs/a.md, "Two batch\n// paths" for why\n',
        "src/g2.cpp": '/// (docs/a.md, "Spark: a semi join")\n',
        "src/g3.py": '# `docs/a.md`, "Title"\n#include <x>\n',
        "docs/g4.md": "[link](a.md#two-batch-paths-1) and [self](#local) `src/x.cpp` src/x.cpp/.hpp src/x.cpp:3-4 "
                      "`y.hpp` src/kernels_<shape>.cu\n\n## Local\n",
    }
    bad = {
        "src/b1.cpp": ('// docs/a.md, "Two batch\n// ways"', "no such heading"),
        "src/b2.cpp": ('// docs/a.md ("Spark: a se")', "no such heading"),  # not at a word boundary
        "src/b3.cpp": ('// docs/gone.md, "Title"', "does not exist"),
        "src/b4.hpp": ("// docs/a.md#parquet-add", "no heading"),
        "docs/b5.md": ("[x](a.md#nothing)", "no heading"),
        "docs/b6.md": ("see `src/gone.cpp`", "src/gone.cpp, which does not exist"),
        "docs/b7.md": ("see `gone.hpp`", "no file"),
        "docs/b8.md": ("[up](#missing)\n# Here\n", "no heading"),
    }
    texts = dict(docs, **{k: v for k, v in good.items()}, **{k: v[0] for k, v in bad.items()})
    checker = Checker(ROOT / "nonexistent-self-test-root", set(texts), read=texts.__getitem__)
    problems = []
    for path in good:
        if checker.check_file(path):
            problems.append(f"{path}: flagged {checker.check_file(path)}")
    for path, (_, want) in bad.items():
        got = checker.check_file(path)
        if not any(want in msg for _, msg in got):
            problems.append(f"{path}: expected an error with '{want}', got {got}")
    for p in problems:
        print(p, file=sys.stderr)
    print("self-test:", "failed" if problems else f"{len(good)} good and {len(bad)} bad samples as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else run(ROOT))
