"""drive.py PROGRAM N [MASK]: sends N SIGUSR1 to signal_loss.c, one at a
time, and waits up to 2 s for each acknowledgement; prints how many were
sent, handled (the program's final count) and lost, and how many waits
timed out."""
import os, select, signal, subprocess, sys, time
prog, n, mask = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "31"
p = subprocess.Popen([prog, mask], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
f = p.stdout
assert f.readline().strip() == b"ready"
acked = 0; timeouts = 0
for i in range(n):
    os.kill(p.pid, signal.SIGUSR1)
    deadline = time.time() + 2
    want = acked + 1
    while acked < want:
        left = deadline - time.time()
        if left <= 0 or not select.select([f], [], [], left)[0]:
            timeouts += 1; break
        line = f.readline()
        acked = int(line.split()[1])
    time.sleep(0.002)
time.sleep(2)
while select.select([f], [], [], 0.1)[0]:
    line = f.readline()
    if not line: break
    acked = int(line.split()[1])
p.kill(); p.wait()
print(f"sent {n} handled {acked} lost {n-acked} timeouts {timeouts}")
