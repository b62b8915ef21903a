#!/usr/bin/env python3
# differential.py: answers cfa-memcached gives against memcached's own
# (Debian's memcached, started here). Each probe of differential.txt goes
# on a new connection to each server, followed by "mn\r\n"; the replies up
# to "MN\r\n" (or the close) must be byte-identical.
#   differential.py CFA_MEMCACHED MEMCACHED PROBES
import os, socket, subprocess, sys, time

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def start(argv, port, quiet=False):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet else None)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close(); return p
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("%s does not listen" % argv[0])

def exchange(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    # Everything the server answers until it closes after our end of file:
    # waiting for the final "MN" instead would stop early when a probe's own
    # mn command's answer arrives in a packet of its own.
    s.sendall(data + b"mn\r\n")
    s.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
    s.close()
    return out

def main():
    cfa, ref, probes = sys.argv[1:4]
    pc, pr = free_port(), free_port()
    a = start([cfa, "-p", str(pc), "-l", "127.0.0.1", "-t", "2"], pc)
    b = start([ref, "-p", str(pr), "-l", "127.0.0.1", "-t", "2", "-U", "0", "-u", "root"], pr, quiet=True)
    n = bad = 0
    try:
        for line in open(probes):
            if line.startswith("#") or not line.strip(): continue
            data = line.rstrip("\n").encode().decode("unicode_escape").encode("latin1")
            mine, theirs = exchange(pc, data), exchange(pr, data)
            n += 1
            if mine != theirs:
                bad += 1
                print("DIFFERS: %r\n  memcached:     %r\n  cfa-memcached: %r" % (data, theirs, mine))
    finally:
        a.terminate(); b.terminate(); a.wait(); b.wait()
    print("differential: %d probes, %d differ" % (n, bad))
    sys.exit(1 if bad else 0)

main()
