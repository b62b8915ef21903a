#!/usr/bin/env python3
# client.py: drives examples/httpd for the lit tests. Each scenario starts
# the server on an ephemeral port over a generated root (deadlines
# shortened by flags), runs its checks, and (unless it tests the stop
# itself) stops it with SIGTERM and checks the exit report: the sockets and
# files open and the live connections must be back to the baseline. Prints
# one line per check; any failure raises (non-zero exit).
# argv: SERVER SCENARIO [REPEATS].
import email.utils, os, random, resource, signal, socket, subprocess, sys, tempfile, threading, time

FAST = ["--header-timeout", "2", "--keepalive-timeout", "1", "--body-timeout", "1", "--send-timeout", "1",
        "--drain-timeout", "2"]

def start(server, root, *extra, nofile=None, stderr=None):
    def limit():
        if nofile: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.Popen([server, "--port", "0", "--root", root, "--processors", "2", "--report-at-exit", *extra],
                         stdout=subprocess.PIPE, stderr=stderr, text=True, preexec_fn=limit)
    line = p.stdout.readline()
    assert line.startswith("listening on 127.0.0.1:"), line
    global last_server
    last_server = p
    return p, int(line.rsplit(":", 1)[1])

def stop(p):
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0, p.returncode
    report = [l for l in out.splitlines() if l.startswith("fds ")][-1].split()
    base, now = report[1].split("/")
    assert base == now and report[3] == "0", "leak: " + out
    print("stop: clean")

def conn(port, timeout=20):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)

def read_response(s, buf=b"", head=False):
    """One response from s (buf: bytes already read); returns (status, headers, body, rest)."""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d: raise EOFError("closed before headers")
        buf += d
    head_block, rest = buf.split(b"\r\n\r\n", 1)
    lines = head_block.decode().split("\r\n")
    status = int(lines[0].split()[1])
    hdr = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    n = 0 if head or status == 304 else int(hdr.get("content-length", "0"))
    while len(rest) < n:
        d = s.recv(65536)
        if not d: break
        rest += d
    return status, hdr, rest[:n], rest[n:]

def request(port, raw, head=False):
    s = conn(port)
    s.sendall(raw)
    st, hdr, body, _ = read_response(s, head=head)
    s.close()
    return st, hdr, body

def stop_begun(port, limit=60):
    """Waits until the server refuses connections: its stop began (the
    Watcher shut the listening socket down), so a signal sent now is a
    second one, never merged with the first while that is pending. A
    probe that was in the listening socket's queue when it was shut down
    is reset rather than refused: that says the same."""
    end = time.time() + limit
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=limit).close()
        except (ConnectionRefusedError, ConnectionResetError):
            return
        time.sleep(0.05)
    assert False, "the server still accepts %d s after SIGTERM" % limit

def closed_by_server(s, limit):
    """Waits up to `limit` s for the server to close s; returns the time it took."""
    t = time.time()
    s.settimeout(limit)
    try:
        while s.recv(65536): pass
    except ConnectionResetError:
        pass
    return time.time() - t

def get(path, extra=b"", version=b"1.1"):
    return b"GET " + path + b" HTTP/" + version + b"\r\nHost: t\r\n" + extra + b"\r\n"

def served(server, root, *flags, **kw):
    """Runs fn(port) against a server started with flags, then stops it cleanly."""
    def wrap(fn):
        p, port = start(server, root, *FAST, *flags, **kw)
        try:
            fn(port)
        finally:
            if p.poll() is None: stop(p)
    return wrap

# ---- scenarios ----------------------------------------------------------------------

def functional(server, root):
    @served(server, root, "--max-body", "4")
    def _(port):
        big = open(os.path.join(root, "big.bin"), "rb").read()
        st, hdr, body = request(port, get(b"/big.bin"))
        assert st == 200 and body == big, (st, len(body)); print("GET big: byte-exact")
        st, hdr, body = request(port, b"HEAD /big.bin HTTP/1.1\r\nHost: t\r\n\r\n", head=True)
        assert st == 200 and hdr["content-length"] == str(len(big)); print("HEAD: length, no body")
        assert request(port, get(b"/missing"))[0] == 404; print("404")
        st, hdr, _ = request(port, b"POST /small.txt HTTP/1.1\r\nHost: t\r\n\r\n")
        assert st == 405 and hdr["allow"] == "GET, HEAD"; print("405 with Allow")
        for bad in [b"GARBAGE\r\n\r\n", b"GET /x\r\n\r\n", b"get / HTTP/1.1\r\nHost: t\r\n\r\n",
                    b"GET /%zz HTTP/1.1\r\nHost: t\r\n\r\n", b"GET /x HTTP/1.1\r\nHost: t\r\nNoColon\r\n\r\n",
                    b"GET /x HTTP/1.1\r\nHost : t\r\n\r\n", b"GET /x HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n",
                    b"GET /x HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", b"GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"]:
            assert request(port, bad)[0] == 400, bad
        print("400 malformed")
        assert request(port, b"GET /x HTTP/2.0\r\nHost: t\r\n\r\n")[0] == 505; print("505 version")
        assert request(port, get(b"/", b"X: " + b"a" * 9000 + b"\r\n"))[0] == 431; print("431 oversized header")
        assert request(port, get(b"/small.txt", b"Content-Length: 5\r\n") + b"hello")[0] == 413; print("413 body")
        assert request(port, get(b"/small.txt", b"Transfer-Encoding: chunked\r\n"))[0] == 501; print("501 chunked")
        for t in [b"/../etc/passwd", b"/%2e%2e/etc/passwd", b"/sub/../../etc/passwd", b"/%2E%2E/%2e%2e/etc/passwd",
                  b"/etc/passwd", b"/escape", b"/sub/./../small.txt", b"http://t/../etc/passwd"]:
            st, _, body = request(port, get(t))
            assert st in (400, 404) and b"root:" not in body, (t, st)
        print("traversal refused")
        s = conn(port); small = open(os.path.join(root, "small.txt"), "rb").read(); rest = b""
        for i in range(5):
            s.sendall(get(b"/small.txt"))
            st, hdr, body, rest = read_response(s, rest)
            assert st == 200 and body == small, (st, body)
        print("keep-alive: 5 on one connection")
        s.sendall(get(b"/small.txt") * 3 + b"HEAD /small.txt HTTP/1.1\r\nHost: t\r\n\r\n" + get(b"/missing"))
        got = []
        for i in range(5):
            st, hdr, body, rest = read_response(s, rest, head=(i == 3))
            got.append(st)
        assert got == [200, 200, 200, 200, 404], got; s.close(); print("pipelining: 5 answered in order")

def http11(server, root):
    log = os.path.join(root, "..", os.path.basename(root) + ".log")
    @served(server, root, "--access-log", log)
    def _(port):
        small = open(os.path.join(root, "small.txt"), "rb").read()
        # bare LF line ends (RFC 9112 2.2), and empty lines before the request
        st, _, body = request(port, b"\r\nGET /small.txt HTTP/1.1\nHost: t\n\n")
        assert st == 200 and body == small, st; print("bare LF: 200")
        assert request(port, b"GET /small.txt HTTP/1.1\r\n\r\n")[0] == 400
        assert request(port, b"GET /small.txt HTTP/1.0\r\n\r\n")[0] == 200
        assert request(port, b"GET http://t/small.txt HTTP/1.1\r\n\r\n")[0] == 200
        print("Host: required for 1.1 (400), not for 1.0; absolute-form")
        st, hdr, body = request(port, get(b"/"))
        assert st == 200 and body == b"<p>root index</p>\n" and hdr["content-type"] == "text/html", st
        st, hdr, _ = request(port, get(b"/site?x=1"))
        assert st == 301 and hdr["location"] == "/site/?x=1", (st, hdr)
        st, _, body = request(port, get(b"/site/"))
        assert st == 200 and body == b"<p>site</p>\n"
        assert request(port, get(b"/sub/"))[0] == 403
        assert request(port, get(b"/sub"))[0] == 301
        print("directory: index, 301 to the slash, 403 without index")
        for name, ctype in [("page.html", "text/html"), ("style.css", "text/css"), ("app.js", "text/javascript"),
                            ("pic.png", "image/png"), ("small.txt", "text/plain"), ("big.bin", "application/octet-stream")]:
            st, hdr, _ = request(port, b"HEAD /" + name.encode() + b" HTTP/1.1\r\nHost: t\r\n\r\n", head=True)
            assert st == 200 and hdr["content-type"] == ctype, (name, hdr.get("content-type"))
        print("Content-Type by extension")
        st, hdr, _ = request(port, get(b"/small.txt"))
        mtime = int(os.stat(os.path.join(root, "small.txt")).st_mtime)
        assert email.utils.parsedate_to_datetime(hdr["last-modified"]).timestamp() == mtime
        assert abs(email.utils.parsedate_to_datetime(hdr["date"]).timestamp() - time.time()) < 60
        etag = hdr["etag"]; assert etag.startswith('"') and etag.endswith('"')
        print("Date, Last-Modified, ETag")
        for extra in [b"If-None-Match: " + etag.encode(), b"If-None-Match: \"x\", W/" + etag.encode(),
                      b"If-None-Match: *", b"If-Modified-Since: " + hdr["last-modified"].encode()]:
            st, h2, body = request(port, get(b"/small.txt", extra + b"\r\n"))
            assert st == 304 and body == b"" and h2["etag"] == etag, (extra, st)
        assert request(port, get(b"/small.txt", b"If-None-Match: \"other\"\r\n"))[0] == 200
        assert request(port, get(b"/small.txt", b"If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n"))[0] == 200
        print("304: If-None-Match, If-Modified-Since")
        big = open(os.path.join(root, "big.bin"), "rb").read()
        for rng, lo, hi in [(b"bytes=0-99", 0, 99), (b"bytes=100-", 100, len(big) - 1), (b"bytes=-10", len(big) - 10, len(big) - 1),
                            (b"bytes=5-99999999", 5, len(big) - 1)]:
            st, h2, body = request(port, get(b"/big.bin", b"Range: " + rng + b"\r\n"))
            assert st == 206 and body == big[lo:hi + 1] and h2["content-range"] == "bytes %d-%d/%d" % (lo, hi, len(big)), (rng, st)
        st, h2, _ = request(port, get(b"/big.bin", b"Range: bytes=%d-\r\n" % len(big)))
        assert st == 416 and h2["content-range"] == "bytes */%d" % len(big), st
        assert request(port, get(b"/big.bin", b"Range: bytes=0-1,5-6\r\n"))[0] == 200
        assert request(port, get(b"/big.bin", b"Range: bytes=0-9\r\nIf-Range: \"stale\"\r\n"))[0] == 200
        assert request(port, get(b"/big.bin", b"Range: bytes=0-9\r\nIf-Range: " + request(port, get(b"/big.bin"))[1]["etag"].encode() + b"\r\n"))[0] == 206
        print("Range: 206, 416, If-Range")
        for path, extra, want in [(b"/missing", b"", 404), (b"/site", b"", 301), (b"/small.txt", b"If-None-Match: *\r\n", 304),
                                  (b"/sub/", b"", 403), (b"/big.bin", b"Range: bytes=0-9\r\n", 200)]:
            s = conn(port)
            s.sendall(b"HEAD " + path + b" HTTP/1.1\r\nHost: t\r\n" + extra + b"\r\n" + get(b"/small.txt"))
            st, _, _, rest = read_response(s, head=True)
            st2, _, body, _ = read_response(s, rest)   # the next response follows at once: no body was sent
            assert st == want and st2 == 200 and body == small, (path, st, st2)
            s.close()
        print("HEAD: no body for 404, 301, 304, 403; Range ignored")
        s = conn(port)
        s.sendall(b"POST /small.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789" + get(b"/small.txt"))
        st, _, _, rest = read_response(s); st2, _, body, _ = read_response(s, rest)
        assert st == 405 and st2 == 200 and body == small, (st, st2); s.close()
        print("request body read past: the connection stays usable")
    lines = open(log).read().splitlines()
    assert any(l.startswith('127.0.0.1 - - [') and '] "GET /small.txt HTTP/1.1" 200 11 "-" "-"' in l for l in lines), lines[:3]
    print("access log: combined format, %d lines" % len(lines))

def robustness(server, root):
    @served(server, root)
    def _(port):
        for i in range(50):                       # disconnect mid-request
            s = conn(port); s.sendall(b"GET /big.bin HTT"); s.close()
        for i in range(50):                       # disconnect mid-response
            s = conn(port); s.sendall(get(b"/big.bin")); s.recv(1000)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"); s.close()
        print("disconnects: 100")
        assert request(port, get(b"/small.txt"))[0] == 200; print("still serving")

def timeouts(server, root):
    @served(server, root)
    def _(port):
        s = conn(port); s.sendall(get(b"/small.txt")); read_response(s)
        t = closed_by_server(s, 20); assert 0.9 <= t < 20, t; s.close()
        print("keep-alive idle: closed at --keepalive-timeout")
        s = conn(port); s.sendall(b"GET /small.txt HTTP/1.1\r\nHo")
        t = closed_by_server(s, 20); assert 1.9 <= t < 20, t; s.close()
        print("partial header, then silence: closed at --header-timeout")
        s = conn(port); cut = False
        try:                                       # 28 bytes, one every 0.25 s: 7 s, past the 2 s deadline
            for c in get(b"/small.txt")[:-2]:
                s.sendall(bytes([c])); time.sleep(0.25)
        except (BrokenPipeError, ConnectionResetError):
            cut = True                             # closed by the server while trickling
        assert cut; s.close()
        print("header trickled: closed at --header-timeout")
        s = conn(port); s.sendall(b"POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789")
        t = closed_by_server(s, 20); assert 0.9 <= t < 20, t; s.close()
        print("body stalled: closed at --body-timeout")
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port)); s.sendall(get(b"/big.bin"))
        time.sleep(3)                                 # not reading: the server's sends stall
        got = 0; s.settimeout(20)
        try:
            while (d := s.recv(65536)): got += len(d)
        except ConnectionResetError:
            pass
        assert got < (3 << 20), got; s.close()
        print("client not reading: cut at --send-timeout")

def slow_clients(server, root):
    # More slow connections than any fixed pool had (64), each sending a
    # header byte every 0.2 s; another client's GETs are all served meanwhile.
    @served(server, root, "--header-timeout", "30")
    def _(port):
        stop_flag = threading.Event(); slow = []
        for i in range(200):
            s = conn(port); slow.append(s)
        def trickle():
            line = get(b"/small.txt")[:-2]; i = 0
            while not stop_flag.is_set():
                for s in slow: s.sendall(line[i % len(line):i % len(line) + 1])
                i += 1; time.sleep(0.2)
        t = threading.Thread(target=trickle); t.start()
        small = open(os.path.join(root, "small.txt"), "rb").read()
        ok = 0
        for i in range(50):
            st, _, body = request(port, get(b"/small.txt"))
            ok += st == 200 and body == small
        stop_flag.set(); t.join()
        for s in slow: s.close()
        assert ok == 50, ok
        print("slow clients: 200 trickling, 50/50 GETs served")

def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def fd_limit(server, root):
    # RLIMIT_NOFILE 64 and 150 connections held: the server is at its limit.
    errlog = tempfile.TemporaryFile(mode="w+")
    @served(server, root, nofile=64, stderr=errlog)
    def _(port):
        pid = last_server.pid
        held = [conn(port) for _ in range(150)]
        time.sleep(1.5)                             # the back-off peaks at 0.5 s: every slot is taken by now
        c0 = cpu_seconds(pid); time.sleep(2); used = cpu_seconds(pid) - c0
        assert used < 0.2, used                     # idle at the limit: no retry loop
        print("at the limit, idle: under 10% CPU")
        statuses = []
        for s in held:
            try:
                s.settimeout(0.3); s.sendall(get(b"/small.txt"))
                statuses.append(read_response(s)[0])
            except (socket.timeout, ConnectionError, EOFError):
                pass                                 # still in the listen backlog, not accepted
        assert statuses and 404 not in statuses and set(statuses) <= {200, 503}, statuses
        assert 503 in statuses, statuses
        print("existing file at the limit: 503, never 404")
        for s in held: s.close()
        deadline = time.time() + 20
        while True:
            try:
                if request(port, get(b"/small.txt"))[0] == 200: break
            except (ConnectionError, EOFError, socket.timeout):
                pass
            assert time.time() < deadline; time.sleep(0.1)
        print("service resumes when clients leave")
    errlog.seek(0); errs = [l for l in errlog.read().splitlines() if "accept:" in l]
    assert 1 <= len(errs) <= 3 and "Too many open files" in errs[0], errs
    print("accept failure logged once per interval")

def max_connections(server, root):
    # --max-connections 5: a sixth connection waits in the listen backlog
    # until one of five idle keep-alive connections closes.
    @served(server, root, "--max-connections", "5", "--keepalive-timeout", "30")
    def _(port):
        held = []
        for _ in range(5):
            s = conn(port); s.sendall(get(b"/small.txt")); assert read_response(s)[0] == 200; held.append(s)
        extra = conn(port); extra.sendall(get(b"/small.txt")); extra.settimeout(1)
        try:
            extra.recv(1); answered = True
        except socket.timeout:
            answered = False
        assert not answered
        print("at --max-connections: a new connection waits")
        held.pop().close(); extra.settimeout(20)
        assert read_response(extra)[0] == 200
        print("one closes: the waiting connection is served")
        for s in held + [extra]: s.close()

def shutdown(server, root):
    # 1. A client mid-header does not hold the exit past the drain deadline.
    p, port = start(server, root, "--header-timeout", "600", "--drain-timeout", "1")
    s = conn(port); s.sendall(b"GET /small.txt HTTP/1.1\r\nHo"); time.sleep(0.2)
    t = time.time(); p.send_signal(signal.SIGTERM); p.communicate(timeout=150)
    assert p.returncode == 0 and time.time() - t < 150, (p.returncode, time.time() - t)  # not the 600 s header timeout
    assert closed_by_server(s, 5) < 5; s.close()
    print("SIGTERM, client mid-header: exit 0 at the drain deadline")
    # 2. A response in flight is finished; an idle keep-alive connection is
    #    closed at once (the drain deadline, 600 s, is not waited for).
    p, port = start(server, root, "--drain-timeout", "600")
    big = open(os.path.join(root, "big.bin"), "rb").read()
    idle = conn(port); idle.sendall(get(b"/small.txt")); read_response(idle)
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    s.connect(("127.0.0.1", port)); s.sendall(get(b"/big.bin")); first = s.recv(1000)
    t = time.time(); p.send_signal(signal.SIGTERM); time.sleep(0.3)
    rest = first
    while (d := s.recv(65536)): rest += d
    head_block, body = rest.split(b"\r\n\r\n", 1)
    assert body == big, (len(body), len(big), head_block)
    assert closed_by_server(idle, 150) < 150
    out, _ = p.communicate(timeout=150)
    assert p.returncode == 0 and time.time() - t < 150 and "threads 0" in out, (p.returncode, out)
    print("SIGTERM: response in flight finished byte-exact, idle connection closed, exit 0")
    # 3. A second SIGTERM, or SIGQUIT, exits at once.
    for second in [signal.SIGTERM, signal.SIGQUIT]:
        p, port = start(server, root, "--drain-timeout", "600", "--header-timeout", "600")
        s = conn(port); s.sendall(b"GET /small.txt HTTP/1.1\r\nHo"); time.sleep(0.2)
        t = time.time()
        if second == signal.SIGTERM: p.send_signal(signal.SIGTERM); stop_begun(port)
        p.send_signal(second); p.communicate(timeout=150)
        assert p.returncode == 1 and time.time() - t < 150, (p.returncode, time.time() - t)
        s.close()
    print("second SIGTERM, SIGQUIT: exit at once")

def concurrent(server, root, n=1000):
    @served(server, root)
    def _(port):
        small = open(os.path.join(root, "small.txt"), "rb").read()
        results = []; lock = threading.Lock()
        def one():
            try:
                st, _, body = request(port, get(b"/small.txt", b"Connection: close\r\n"))
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

def preemption_load(server, root, conns=120, seconds=4, processors="1"):
    # Run with CFA_PREEMPTION_MS=1: connection threads are preempted after
    # every millisecond of CPU time, at any instruction of the server's own
    # code, holding its locks too. 120 keep-alive connections send requests
    # for `seconds`; every response must be the file, byte-exact; then
    # stop() checks exit 0 on SIGTERM with nothing leaked, and the access
    # log has one line per request. A long User-Agent keeps a thread in the
    # log's lock for microseconds (escaping it), where preemption finds it;
    # on one processor a lock that blocks the kernel thread (a pthread
    # mutex) then stalls the server for good. Deadlines are long: only a
    # hang fails.
    slow = ["--header-timeout", "60", "--keepalive-timeout", "60", "--send-timeout", "60", "--body-timeout", "60"]
    log = tempfile.NamedTemporaryFile(prefix="httpd-log-")
    ua = b"User-Agent: " + b"preempt-me/1.0 " * 40 + b"\r\n"
    total = [0]
    @served(server, root, *slow, "--access-log", log.name, "--processors", processors)
    def _(port):
        names = ["small.txt", "index.html", "page.html", "style.css", "app.js", "pic.png", "mid.bin"]
        files = {n: open(os.path.join(root, n), "rb").read() for n in names}
        results = []; lock = threading.Lock(); end = time.time() + seconds
        def one(i):
            rnd, ok, bad = random.Random(i), 0, []
            try:
                s = conn(port, timeout=120); buf = b""
                while time.time() < end or ok == 0:
                    name = rnd.choice(names)
                    s.sendall(get(b"/" + name.encode(), ua))
                    st, _, body, buf = read_response(s, buf)
                    if st == 200 and body == files[name]: ok += 1
                    else: bad.append("%s: %d, %d bytes" % (name, st, len(body)))
                s.close()
            except (OSError, EOFError) as e:
                bad.append("connection %d: %r" % (i, e))
            with lock: results.append((ok, bad))
        ts = [threading.Thread(target=one, args=(i,)) for i in range(conns)]
        for t in ts: t.start()
        for t in ts: t.join()
        bad = [b for _, bs in results for b in bs]
        assert len(results) == conns and not bad, bad[:5]
        total[0] = sum(ok for ok, _ in results)
        print("preemption load: %d connections for %d s, %d responses, every one byte-exact" % (conns, seconds, total[0]))
    lines = open(log.name, "rb").read().count(b"\n")
    assert lines == total[0], (lines, total[0])
    print("access log: one line per request")

def main():
    server, scenario = sys.argv[1], sys.argv[2]
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        run(server, scenario)

def run(server, scenario):
    root = tempfile.mkdtemp(prefix="httpd-test-")
    for d in ["sub", "site"]: os.mkdir(os.path.join(root, d))
    files = {"small.txt": b"small file\n", "index.html": b"<p>root index</p>\n", "site/index.html": b"<p>site</p>\n",
             "page.html": b"<p/>", "style.css": b"p{}", "app.js": b"1;", "pic.png": b"\x89PNG",
             "mid.bin": random.randbytes(200 << 10),
             "big.bin": random.randbytes(3 << 20)}
    for name, data in files.items(): open(os.path.join(root, name), "wb").write(data)
    os.symlink("/etc/passwd", os.path.join(root, "escape"))
    globals()[scenario](server, root)

main()
