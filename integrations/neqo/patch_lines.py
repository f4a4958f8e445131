#!/usr/bin/env python3
"""Changed lines per patch of a series, split into non-test and test lines.

    python3 integrations/neqo/patch_lines.py [--base TREE] PATCH...

Applies the patches in order on a scratch copy of TREE (a git checkout;
default: the `main` tree run.sh builds, neqo 80ca01e plus the harness patch)
and counts each patch's added and removed lines. A line is a test line when
its file lies under a `tests/` folder or when it sits at or below the line
first attribute of the file's top-level `mod tests` / `mod test` (in the version before the
patch for a removed line, after it for an added one). Cargo.lock is left
out. Standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BASE = os.path.join(HERE, "..", "..", "target", "neqo-integration", "trees", "main")


def git(repo, *args, stdin=None):
    r = subprocess.run(["git", "-C", repo, *args], input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"error: git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def test_module_start(repo, rev, path):
    """First line (1-based) of the test module of `path` at `rev`, or None."""
    r = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    lines = r.stdout.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"(pub )?mod tests? \{", line):
            # Back over its attributes (`#[cfg(test)]`, `#[cfg_attr(…)]`).
            while i > 0 and lines[i - 1].startswith("#["):
                i -= 1
            return i + 1
    return None


def count(repo, a, b):
    diff = git(repo, "diff", "--no-color", "-U0", a, b, "--", ".", ":!Cargo.lock")
    code = test = 0
    path = None
    old = new = 0
    starts = (None, None)
    for line in diff.splitlines():
        if line.startswith("diff --git"):
            path = line.split(" b/", 1)[1]
            starts = (test_module_start(repo, a, path), test_module_start(repo, b, path))
            continue
        m = re.match(r"^@@ -(\d+)(?:,\d+)? \+(\d+)", line)
        if m:
            old, new = int(m.group(1)), int(m.group(2))
            continue
        if line.startswith(("+++", "---")):
            continue
        in_tests = "/tests/" in f"/{path}"
        if line[:1] in ("+", "-"):
            added = line[0] == "+"
            start, at = (starts[1], new) if added else (starts[0], old)
            if in_tests or (start is not None and at >= start):
                test += 1
            else:
                code += 1
            if added:
                new += 1
            else:
                old += 1
    return code, test


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default=DEFAULT_BASE, help="git checkout to apply the patches on")
    p.add_argument("patches", nargs="+")
    a = p.parse_args()
    if not os.path.isdir(os.path.join(a.base, ".git")):
        sys.exit(f"error: --base: {a.base} is not a git checkout (run integrations/neqo/run.sh once)")
    for patch in a.patches:
        if not os.path.isfile(patch):
            sys.exit(f"error: {patch}: no such patch file")
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "tree")
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", a.base, work], check=True)
        git(work, "config", "user.email", "patch-lines@localhost")
        git(work, "config", "user.name", "patch-lines")
        total = [0, 0]
        print(f"{'patch':<70} {'non-test':>9} {'test':>6}")
        for patch in a.patches:
            before = git(work, "rev-parse", "HEAD").strip()
            git(work, "apply", "--index", os.path.abspath(patch))
            git(work, "commit", "-q", "-m", os.path.basename(patch))
            code, test = count(work, before, "HEAD")
            total[0] += code
            total[1] += test
            print(f"{os.path.basename(patch):<70} {code:>9} {test:>6}")
        print(f"{'series':<70} {total[0]:>9} {total[1]:>6}")


if __name__ == "__main__":
    main()
