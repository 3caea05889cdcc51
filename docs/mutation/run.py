# Applies each mutant of mutants.py to a copy of the repository (never to a
# working tree: it edits files), runs that package's tests (-tags mutation)
# and restores the file. Usage: python3 run.py COPY [package]. Prints one
# tuple per mutant: index, package, file, what, KILLED/LIVED, failing tests.
import subprocess, sys, os, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutants import M
src = sys.argv[1]  # a copy of the repository
only = sys.argv[2] if len(sys.argv) > 2 else None
out = []
for i, (pkg, f, old, new, what) in enumerate(M):
    if only and pkg != only: continue
    p = os.path.join(src, f)
    s = open(p).read()
    n = s.count(old)
    if n != 1:
        out.append((i, pkg, f, what, "BAD(%d matches)" % n, "")); print(out[-1], flush=True); continue
    open(p, 'w').write(s.replace(old, new))
    t0 = time.time()
    try:
        r = subprocess.run(["nice", "-n", "10", "go", "test", "-tags", "mutation", "-count=1", "./" + pkg], cwd=src, capture_output=True, text=True, timeout=900)
        status = "KILLED" if r.returncode != 0 else "LIVED"
        fails = [l.strip() for l in r.stdout.splitlines() if l.startswith("--- FAIL")][:4]
        if r.returncode != 0 and not fails:
            fails = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()][:2]
    except subprocess.TimeoutExpired:
        status, fails = "TIMEOUT", []
    open(p, 'w').write(s)
    out.append((i, pkg, f, what, status, " ".join(fails)))
    print(out[-1], "%.0fs" % (time.time() - t0), flush=True)
