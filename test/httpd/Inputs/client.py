#!/usr/bin/env python3
# client.py: drives examples/httpd for the lit tests. Starts the server on
# an ephemeral port over a generated root, runs one scenario, stops it with
# SIGTERM and checks the exit report: the sockets/files open and the live
# connections must be back to the baseline. Prints one line per check;
# any failure raises (non-zero exit). argv: SERVER SCENARIO [REPEATS].
import os, random, signal, socket, subprocess, sys, tempfile, threading, time

def start(server, root, *extra):
    p = subprocess.Popen([server, "--port", "0", "--root", root, "--processors", "2",
                          "--report-at-exit", *extra], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("listening on 127.0.0.1:"), line
    return p, int(line.rsplit(":", 1)[1])

def stop(p):
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 0, p.returncode
    fds, threads = out.split()[1], out.split()[3]
    base, now = fds.split("/")
    assert base == now and threads == "0", "leak: " + out
    print("stop: clean")

def conn(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    return s

def read_response(s, buf=b""):
    """One response from s (buf: bytes already read); returns (status, headers, body, rest)."""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d: raise EOFError("closed before headers")
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    hdr = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    n = int(hdr.get("content-length", "0"))
    return status, hdr, rest, n

def request(port, raw, head=False):
    s = conn(port)
    s.sendall(raw)
    st, hdr, rest, n = read_response(s)
    if not head:
        while len(rest) < n:
            d = s.recv(65536)
            if not d: break
            rest += d
    s.close()
    return st, hdr, rest

def functional(port, root):
    big = open(os.path.join(root, "big.bin"), "rb").read()
    st, hdr, body = request(port, b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
    assert st == 200 and body == big, (st, len(body)); print("GET big: byte-exact")
    st, hdr, body = request(port, b"HEAD /big.bin HTTP/1.1\r\n\r\n", head=True)
    assert st == 200 and hdr["content-length"] == str(len(big)) and body == b""; print("HEAD: length, no body")
    assert request(port, b"GET /missing HTTP/1.1\r\n\r\n")[0] == 404; print("404")
    st, hdr, _ = request(port, b"POST /small.txt HTTP/1.1\r\n\r\n")
    assert st == 405 and hdr["allow"] == "GET, HEAD"; print("405 with Allow")
    for bad in [b"GARBAGE\r\n\r\n", b"GET /x\r\n\r\n", b"GET /x HTTP/2.0\r\n\r\n", b"get / HTTP/1.1\r\n\r\n",
                b"GET /%zz HTTP/1.1\r\n\r\n", b"GET /x HTTP/1.1\r\nNoColon\r\n\r\n"]:
        assert request(port, bad)[0] == 400, bad
    print("400 malformed")
    assert request(port, b"GET / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n")[0] == 431; print("431 oversized header")
    assert request(port, b"GET /small.txt HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")[0] == 413; print("413 body")
    for t in [b"/../etc/passwd", b"/%2e%2e/etc/passwd", b"/sub/../../etc/passwd", b"/%2E%2E/%2e%2e/etc/passwd",
              b"http://127.0.0.1/etc/passwd", b"/etc/passwd", b"/escape", b"/sub/./../small.txt"]:
        st, _, body = request(port, b"GET " + t + b" HTTP/1.1\r\n\r\n")
        assert st in (400, 404) and b"root:" not in body, (t, st)
    print("traversal refused")
    # keep-alive: several requests on one connection, then pipelined ones
    s = conn(port); small = open(os.path.join(root, "small.txt"), "rb").read(); rest = b""
    for i in range(5):
        s.sendall(b"GET /small.txt HTTP/1.1\r\n\r\n")
        st, hdr, rest, n = read_response(s, rest)
        while len(rest) < n: rest += s.recv(65536)
        assert st == 200 and rest[:n] == small, (st, rest[:n]); rest = rest[n:]
    print("keep-alive: 5 on one connection")
    s.sendall(b"GET /small.txt HTTP/1.1\r\n\r\n" * 3 + b"HEAD /small.txt HTTP/1.1\r\n\r\nGET /missing HTTP/1.1\r\n\r\n")
    got = []
    for i in range(5):
        st, hdr, rest, n = read_response(s, rest)
        if i == 3: n = 0
        while len(rest) < n: rest += s.recv(65536)
        got.append(st); rest = rest[n:]
    assert got == [200, 200, 200, 200, 404], got; s.close(); print("pipelining: 5 answered in order")

def robustness(port, root):
    for i in range(50):                       # disconnect mid-request
        s = conn(port); s.sendall(b"GET /big.bin HTT"); s.close()
    for i in range(50):                       # disconnect mid-response
        s = conn(port); s.sendall(b"GET /big.bin HTTP/1.1\r\n\r\n"); s.recv(1000)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"); s.close()
    print("disconnects: 100")
    assert request(port, b"GET /small.txt HTTP/1.1\r\n\r\n")[0] == 200; print("still serving")
    # idle keep-alive connections are cut after the idle timeout (1 s here)
    s = conn(port); t = time.time(); assert s.recv(10) == b""; assert time.time() - t < 10; s.close()
    print("idle connection closed")

def concurrent(port, root, n=1000):
    small = open(os.path.join(root, "small.txt"), "rb").read()
    results = []; lock = threading.Lock()
    def one():
        try:
            st, _, body = request(port, b"GET /small.txt HTTP/1.1\r\nConnection: close\r\n\r\n")
            r = "ok" if st == 200 and body == small else "bad %d" % st
        except (ConnectionError, EOFError, socket.timeout) as e:
            r = "refused"                      # refused or reset cleanly: allowed
        with lock: results.append(r)
    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts: t.start()
    for t in ts: t.join(60)
    assert len(results) == n and "bad" not in " ".join(results), results[:5]
    print("concurrent: %d answered, %d ok" % (n, results.count("ok")))
    assert results.count("ok") >= n * 9 // 10

def main():
    server, scenario = sys.argv[1], sys.argv[2]
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        run(server, scenario)

def run(server, scenario):
    root = tempfile.mkdtemp(prefix="httpd-test-")
    os.mkdir(os.path.join(root, "sub"))
    open(os.path.join(root, "small.txt"), "wb").write(b"small file\n")
    open(os.path.join(root, "big.bin"), "wb").write(random.randbytes(3 << 20))
    os.symlink("/etc/passwd", os.path.join(root, "escape"))
    p, port = start(server, root, "--threads", "64", "--idle-timeout", "1")
    try:
        globals()[scenario](port, root)
    finally:
        if p.poll() is None: stop(p)

main()
