#!/usr/bin/env python3
# usage: cc-fuzzrate.py PKGDIR TARGET SECONDS   (PKGDIR relative to the repository root, e.g. compiler/backend)
# Runs the fuzz-instrumented test binary of PKG's TARGET with one worker and
# reports execs per CPU-second of the coordinator+worker processes, both for
# the whole run and for the fuzzing phase only (after the baseline-coverage
# run of the cached corpus), from /proc CPU times sampled every 0.25 s.
import os, re, subprocess, sys, time
pkg, target, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))  # the repository
os.makedirs('/tmp/cc-fz', exist_ok=True)
binp = '/tmp/cc-fz/' + pkg.replace('/', '_') + '.test'
subprocess.run(['go', 'test', '-c', '-fuzz', '^%s$' % target, '-o', binp, './' + pkg], cwd=root, check=True)
cache = subprocess.run(['go', 'env', 'GOCACHE'], capture_output=True, text=True).stdout.strip() + '/fuzz/github.com/tilegpu/tilegpu/' + pkg
log = open('/tmp/cc-fz/m2.log', 'w')
p = subprocess.Popen([binp, '-test.run', 'XXX', '-test.fuzz', '^%s$' % target, '-test.fuzztime', '%ds' % secs,
                      '-test.parallel', '1', '-test.fuzzcachedir', cache], cwd=os.path.join(root, pkg), stdout=log, stderr=subprocess.STDOUT)
tick = os.sysconf('SC_CLK_TCK')
def cpu(pid, children=False):
    # utime+stime, plus cutime+cstime (workers that exited and were waited
    # for) for the coordinator.
    try:
        f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
        t = int(f[11]) + int(f[12])
        if children:
            t += int(f[13]) + int(f[14])
        return t / tick
    except OSError:
        return 0.0
def tree_cpu():
    total = cpu(p.pid, True)
    kids = subprocess.run(['pgrep', '-P', str(p.pid)], capture_output=True, text=True).stdout.split()
    for k in kids:
        total += cpu(int(k))
    return total
start_cpu = start_execs = None
last_cpu = 0.0
while p.poll() is None:
    time.sleep(0.25)
    c = tree_cpu()
    if c > last_cpu:
        last_cpu = c
    text = open('/tmp/cc-fz/m2.log').read()
    if start_cpu is None and 'now fuzzing' in text:
        start_cpu = last_cpu
        start_execs = 0
log.close()
text = open('/tmp/cc-fz/m2.log').read()
execs = [int(x) for x in re.findall(r'execs: (\d+)', text)]
total = execs[-1] if execs else 0
crash = 'FAIL' in text or 'failing input' in text
load = open('/proc/loadavg').read().split()[0]
rate_fz = (total - start_execs) / (last_cpu - start_cpu) if start_cpu is not None and last_cpu > start_cpu else 0
print('%s %s %ds: %d execs; CPU %.1f s in all (%.0f execs/CPU-s), %.1f s while fuzzing (%.0f execs/CPU-s); new interesting %s; load %s%s' % (
    pkg, target, secs, total, last_cpu, total / last_cpu if last_cpu else 0, last_cpu - (start_cpu or 0), rate_fz,
    (re.findall(r'new interesting: (\d+)', text) or ['?'])[-1], load, ' FAILED' if crash else ''))
