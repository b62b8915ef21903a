#!/usr/bin/env python3
# mc.py: drives cfa-memcached for the lit tests. Starts the server on an
# ephemeral port, runs one scenario, stops it with SIGTERM (it must exit
# 0) and checks that nothing leaked: the descriptors it holds (sockets,
# pipes, files; not the runtime's anonymous inodes) and its connection
# threads (`connection_structures`) are back to the baseline. Prints one
# line per check; any failure raises (non-zero exit).
#   mc.py SERVER SCENARIO [REPEATS]
import os, random, signal, socket, subprocess, sys, threading, time

SERVER = None

def start(*extra):
    p = subprocess.Popen([SERVER, "-p", "0", "-l", "127.0.0.1", "-t", "2", *extra],
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("listening on 127.0.0.1:"), line
    return p, int(line.rsplit(":", 1)[1])

def fds(pid):
    n = 0
    for e in os.listdir("/proc/%d/fd" % pid):
        try:
            if not os.readlink("/proc/%d/fd/%s" % (pid, e)).startswith("anon_inode:"): n += 1
        except FileNotFoundError:
            pass
    return n

class Conn:
    def __init__(self, port, timeout=30):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
    def send(self, data):
        self.s.sendall(data if isinstance(data, bytes) else data.encode())
    def line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d: raise EOFError("closed; have %r" % self.buf)
            self.buf += d
        l, self.buf = self.buf.split(b"\r\n", 1)
        return l.decode("latin1")
    def exact(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d: raise EOFError("closed")
            self.buf += d
        b, self.buf = self.buf[:n], self.buf[n:]
        return b
    def cmd(self, data):
        self.send(data)
        return self.line()
    def get(self, *keys, cmd="get"):
        self.send("%s %s\r\n" % (cmd, " ".join(keys)))
        out = {}
        while True:
            l = self.line()
            if l == "END": return out
            f = l.split()
            assert f[0] == "VALUE", l
            v = self.exact(int(f[3]) + 2)[:-2]
            out[f[1]] = (v, int(f[2])) + ((int(f[4]),) if len(f) > 4 else ())
    def stats(self, sub=""):
        self.send("stats %s\r\n" % sub if sub else "stats\r\n")
        st = {}
        while True:
            l = self.line()
            if l == "END": return st
            _, k, v = l.split(" ", 2)
            st[k] = v
    def closed(self):
        try:
            return self.s.recv(1) == b""
        except ConnectionError:
            return True
    def close(self):
        self.s.close()

def wait_conns(port, n, timeout=60):
    """Waits until the server reports n connections (the asking one included)."""
    c = Conn(port)
    t = time.time()
    while True:
        st = c.stats()
        if int(st["curr_connections"]) == n and int(st["connection_structures"]) == n: break
        assert time.time() - t < timeout, "connections stay at %s" % st["curr_connections"]
        time.sleep(0.05)
    return c

# ---- scenarios ----------------------------------------------------------------
def functional(port):
    c = Conn(port)
    assert c.cmd("set a 5 0 3\r\nabc\r\n") == "STORED"
    assert c.get("a") == {"a": (b"abc", 5)}; print("set/get: value and flags")
    assert c.cmd("set big 4294967295 0 0\r\n\r\n") == "STORED" and c.get("big")["big"][1] == 4294967295
    assert c.cmd("add a 0 0 1\r\nx\r\n") == "NOT_STORED" and c.cmd("add n 0 0 2\r\n10\r\n") == "STORED"
    assert c.cmd("replace zz 0 0 1\r\nx\r\n") == "NOT_STORED" and c.cmd("replace a 7 0 1\r\nr\r\n") == "STORED"
    assert c.cmd("append a 0 0 2\r\nxy\r\n") == "STORED" and c.cmd("prepend a 0 0 2\r\n<<\r\n") == "STORED"
    assert c.get("a") == {"a": (b"<<rxy", 7)}; print("add/replace/append/prepend")
    cas = c.get("a", cmd="gets")["a"][2]
    assert c.cmd("cas a 1 0 1 %d\r\nA\r\n" % (cas + 1)) == "EXISTS"
    assert c.cmd("cas a 1 0 1 %d\r\nA\r\n" % cas) == "STORED"
    assert c.cmd("cas a 1 0 1 %d\r\nB\r\n" % cas) == "EXISTS"
    assert c.cmd("cas nokey 1 0 1 1\r\nB\r\n") == "NOT_FOUND"; print("cas: exactly once")
    assert c.cmd("incr n 5\r\n") == "15" and c.cmd("decr n 100\r\n") == "0"
    assert c.cmd("incr n 18446744073709551615\r\n") == "18446744073709551615"
    assert c.cmd("incr n 2\r\n") == "1", "incr wraps at 2^64"
    assert c.cmd("incr a 1\r\n") == "CLIENT_ERROR cannot increment or decrement non-numeric value"
    assert c.cmd("incr nokey 1\r\n") == "NOT_FOUND"; print("incr/decr: wrap, floor, non-numeric")
    c.send("set q 0 0 1 noreply\r\nq\r\nincr n 1 noreply\r\ndelete zz noreply\r\nset q2 0 0 1 noreply\r\nx\r\n")
    assert c.cmd("mn\r\n") == "MN" and "q" in c.get("q", "q2"); print("noreply: silent")
    assert c.cmd("delete a\r\n") == "DELETED" and c.cmd("delete a\r\n") == "NOT_FOUND"
    # expiry: relative, negative (now), absolute unix time (> 30 days), touch,
    # gat, on the server's test clock: it moves only by `debugtime`
    assert c.cmd("debugtime 0\r\n") == "OK"
    now = int(c.stats()["time"])
    c.cmd("set r 0 1 1\r\nr\r\n"); c.cmd("set neg 0 -1 1\r\nn\r\n")
    c.cmd("set abs 0 %d 1\r\na\r\n" % (now + 1)); c.cmd("set past 0 %d 1\r\np\r\n" % (now - 100))
    c.cmd("set long 0 %d 1\r\nl\r\n" % (now + 3600)); c.cmd("set t 0 1 1\r\nt\r\n")
    assert c.get("neg", "past") == {} and set(c.get("r", "abs", "long")) == {"r", "abs", "long"}
    assert c.cmd("touch t 100\r\n") == "TOUCHED" and c.cmd("touch nokey 1\r\n") == "NOT_FOUND"
    assert c.get("long", cmd="gat 0") == {"long": (b"l", 0)}
    assert c.cmd("debugtime 1\r\n") == "OK"
    assert c.get("r", "abs") == {} and set(c.get("t", "long")) == {"t", "long"}; print("expiry: relative, absolute, touch, gat")
    c.cmd("set f 0 0 1\r\nf\r\n")
    assert c.cmd("flush_all 2\r\n") == "OK" and "f" in c.get("f")
    assert c.cmd("debugtime 2\r\n") == "OK"
    assert c.get("f", "t") == {}
    c.cmd("set g 0 0 1\r\ng\r\n")
    assert c.cmd("flush_all\r\n") == "OK" and c.get("g") == {}
    assert c.cmd("set g 0 0 1\r\ng\r\n") == "STORED" and "g" in c.get("g"); print("flush_all: delayed and now")
    # meta commands
    assert c.cmd("ms m 2 T0 F9 c k O77\r\nhi\r\n").startswith("HD c")
    c.send("mg m v f s t k O5 c\r\n"); l = c.line()
    f = l.split(); assert f[:2] == ["VA", "2"] and "f9" in f and "s2" in f and "t-1" in f and "km" in f and "O5" in f, l
    assert c.line() == "hi"
    assert c.cmd("mg nokey v\r\n") == "EN" and c.cmd("mg m\r\n") == "HD"
    cas = int([x for x in f if x.startswith("c")][0][1:])
    assert c.cmd("ms m 1 C%d\r\nX\r\n" % (cas + 1)) == "EX" and c.cmd("ms m 1 C%d\r\nX\r\n" % cas) == "HD"
    assert c.cmd("ms m 1 ME\r\nY\r\n") == "NS" and c.cmd("ms m 1 MA\r\nZ\r\n") == "HD"
    c.send("mg m v\r\n"); assert c.line() == "VA 2" and c.line() == "XZ"
    assert c.cmd("ma cnt\r\n") == "NF" and c.cmd("ma cnt N0 J10\r\n") == "HD"
    c.send("ma cnt D5 v\r\n"); assert c.line() == "VA 2" and c.line() == "15"
    c.send("ma cnt MD D20 v\r\n"); assert c.line() == "VA 1" and c.line() == "0"
    assert c.cmd("ms tl 1 T100\r\n5\r\n") == "HD" and c.cmd("ma tl t\r\n") in ("HD t100", "HD t99")
    assert c.cmd("ma cnt t\r\n") == "HD t-1"
    assert c.cmd("md m q\r\nmn\r\n") == "MN" and c.cmd("md m\r\n") == "NF"
    assert c.cmd("mg a2V5 b k v\r\n") == "EN ka2V5 b" and c.cmd("ms a2V5 1 b\r\nv\r\n") == "HD"
    c.send("mg a2V5 b k v\r\n"); assert c.line() == "VA 1 ka2V5 b" and c.line() == "v" and "key" in c.get("key")
    assert c.cmd("me key\r\n").startswith("ME key exp=-1 la=") and c.cmd("me nokey\r\n") == "EN"
    assert c.cmd("mg vv N30 s\r\n") == "HD s0 W" and c.cmd("mg vv s\r\n") == "HD s0 Z"
    assert c.cmd("md vv I\r\n") == "HD" and c.cmd("mg vv s\r\n") == "HD s0 X W"
    print("meta: mg ms md ma mn me, base64 keys, vivify, invalidate")
    st = c.stats()
    for k in ["pid", "uptime", "curr_connections", "total_connections", "cmd_get", "cmd_set", "get_hits",
              "get_misses", "cas_hits", "cas_badval", "cas_misses", "incr_hits", "decr_misses", "curr_items",
              "bytes", "evictions", "limit_maxbytes", "threads", "bytes_read", "bytes_written"]:
        assert k in st, k
    assert int(st["cas_hits"]) >= 2 and int(st["cas_badval"]) >= 2 and int(st["threads"]) == 2
    assert c.stats("settings")["item_size_max"] == "1048576" and "items:1:number" in c.stats("items")
    assert "total_malloced" in c.stats("slabs") and c.cmd("stats nosuch\r\n") == "ERROR"
    assert c.cmd("verbosity 1\r\n") == "OK" and c.cmd("verbosity 0\r\n") == "OK" and c.cmd("version\r\n").startswith("VERSION 1.6")
    print("stats: memcached's names")
    c.send("quit\r\n"); assert c.closed(); print("quit closes")

def eviction(port):
    """-m 2: 400 items of 20 KB (8 MB) through 2 MB; a key read between
    every store survives, the oldest go, memory stays under the limit."""
    c = Conn(port)
    assert c.cmd("debugtime 1\r\n") == "ERROR"   # the real clock: no such command
    v = b"v" * 20000
    c.cmd(b"set hot 0 0 5\r\nhello\r\n")
    for i in range(400):
        assert c.cmd(b"set k%d 0 0 %d\r\n%s\r\n" % (i, len(v), v)) == "STORED"
        assert "hot" in c.get("hot"), "the recently used key was evicted at %d" % i
    st = c.stats()
    assert int(st["evictions"]) > 250 and int(st["bytes"]) <= 2 << 20, st
    assert c.get("k0", "k1", "k2") == {} and "k399" in c.get("k399")
    print("eviction: LRU under -m 2: the oldest evicted, the hot key kept, bytes within the limit")
    big = b"x" * 1048576
    assert c.cmd(b"set big 0 0 %d\r\n%s\r\n" % (len(big), big)) == "SERVER_ERROR object too large for cache"
    assert c.cmd("get k399\r\n").startswith("VALUE"); c.line(); c.line()
    print("too large: refused, swallowed, connection usable")

def robustness(port):
    base = wait_conns(port, 1); base_fds = fds(PID)
    c = Conn(port)
    # oversized value: refused, its bytes swallowed, the stream goes on
    c.send(b"set big 0 0 3000000\r\n" + b"z" * 3000002)
    assert c.line() == "SERVER_ERROR object too large for cache"
    assert c.cmd("set k 0 0 2\r\nok\r\n") == "STORED"
    # data block of the wrong length; bad numbers; unknown commands
    assert c.cmd("set k 0 0 1\r\nxx\r\n") == "CLIENT_ERROR bad data chunk"
    assert c.line() == "ERROR"                      # the "\r\n" left over is an empty line
    for bad, want in [("set k 0 0 -1", "CLIENT_ERROR bad command line format"),
                      ("set k x 0 1", "CLIENT_ERROR bad command line format"),
                      ("set k 0 0", "ERROR"), ("bogus", "ERROR"), ("", "ERROR"),
                      ("get " + "k" * 251, "CLIENT_ERROR bad command line format"),
                      ("incr k -1", "CLIENT_ERROR invalid numeric delta argument"),
                      ("touch k x", "CLIENT_ERROR invalid exptime argument"),
                      ("delete k 5", "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]"),
                      ("mg k zz", "CLIENT_ERROR invalid flag"), ("mg k v v", "CLIENT_ERROR duplicate flag")]:
        got = c.cmd(bad + "\r\n")
        assert got == want, (bad, got)
    assert c.cmd("ms k 1 MX\r\nz\r\n") == "CLIENT_ERROR invalid mode for ms M token"
    print("malformed lines: memcached's answers")
    # a line of 3000 bytes without a newline: the connection is closed
    d = Conn(port); d.send(b"x" * 3000); assert d.closed(); d.close()
    # a multiget longer than that is fine
    keys = ["key%04d" % i for i in range(800)]
    assert c.get(*keys) == {}
    print("long lines: junk closed, multiget served")
    # half a command, then vanish; half a data block, then vanish
    for i in range(200):
        h = Conn(port)
        h.send(random.choice([b"set k 0 0 10\r\nabc", b"get k", b"ms k 5 T", b"set k 0 0 100000\r\n" + b"a" * 5000]))
        if i % 2: h.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        h.close()
    print("half commands then gone: 200")
    # 10,000 connections opened and dropped, in waves of 500 open at once
    for wave in range(20):
        cs = [Conn(port) for _ in range(500)]
        for x in cs[::3]: x.send(b"get k\r\n")
        for x in cs: x.close()
    print("10000 connections opened and dropped")
    c.close()
    assert c is not None
    base2 = wait_conns(port, 2)
    st = base2.stats()
    assert int(st["total_connections"]) >= 10200
    assert fds(PID) == base_fds + 1, "fds %d, baseline %d (+1 for the new stats connection)" % (fds(PID), base_fds)
    print("no leak: connections and descriptors back to baseline")
    assert base2.cmd("get k\r\n").startswith("VALUE"); base2.line(); base2.line(); print("still serving")

def maxconns(port):
    cs = [Conn(port) for _ in range(3)]
    v = cs[0].cmd("version\r\n"); assert v.startswith("VERSION"), v
    x = Conn(port)
    l = x.line(); assert l == "ERROR Too many open connections", l
    assert x.closed(), "the refused connection stays open"
    st = cs[0].stats(); assert int(st["rejected_connections"]) >= 1, st["rejected_connections"]
    print("-c 3: the fourth connection refused as memcached does")

def stress(port, threads=16, ops=1500):
    """Mixed set/get/cas/incr from many connections on overlapping keys:
    no increment lost, every cas success exactly once, every get sees a
    value some client stored whole."""
    c = Conn(port)
    counters = ["ctr%d" % i for i in range(4)]
    for k in counters: c.cmd("set %s 0 0 1\r\n0\r\n" % k)
    c.cmd("set casv 0 0 1\r\n0\r\n")
    incrs = [0] * threads; cas_ok = [0] * threads; errors = []
    def worker(t):
        try:
            w = Conn(port); rnd = random.Random(t)
            for i in range(ops):
                r = rnd.random()
                if r < 0.35:
                    k = rnd.choice(counters); n = rnd.randint(1, 5)
                    int(w.cmd("incr %s %d\r\n" % (k, n))); incrs[t] += n
                elif r < 0.6:
                    got = w.get("casv", cmd="gets")["casv"]
                    val = int(got[0]) + 1
                    res = w.cmd("cas casv 0 0 %d %d\r\n%d\r\n" % (len(str(val)), got[2], val))
                    assert res in ("STORED", "EXISTS"), res
                    if res == "STORED": cas_ok[t] += 1
                elif r < 0.8:
                    k = "shared%d" % rnd.randint(0, 7)
                    body = ("%s:%d:%d:" % (k, t, i)).encode() * rnd.randint(1, 50)
                    assert w.cmd(b"set %s 0 0 %d\r\n%s\r\n" % (k.encode(), len(body), body)) == "STORED"
                else:
                    k = "shared%d" % rnd.randint(0, 7)
                    v = w.get(k).get(k)
                    if v:
                        unit = v[0].split(b":", 3)
                        one = b":".join(unit[:3]) + b":"
                        assert unit[0] == k.encode() and v[0] == one * (len(v[0]) // len(one)), v[0][:80]
            w.close()
        except Exception as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for x in ts: x.start()
    for x in ts: x.join()
    assert not errors, errors[:3]
    total = sum(int(c.get(k)[k][0]) for k in counters)
    assert total == sum(incrs), (total, sum(incrs))
    final = int(c.get("casv")["casv"][0])
    assert final == sum(cas_ok), (final, sum(cas_ok))
    print("stress: %d threads x %d ops: incr total exact, cas exactly once (%s successes)" % (threads, ops, "some" if final else "no"))

def memccapable(port):
    """libmemcached's protocol checker, ASCII mode. Its wait for each reply
    is 2 s unless told: a loaded machine (or a sanitizer build) is slower
    than that, and a slow answer is not a wrong one."""
    out = subprocess.run(["memccapable", "-a", "-t", "120", "-h", "127.0.0.1", "-p", str(port)],
                         capture_output=True, text=True, timeout=300)
    sys.stdout.write(out.stdout)
    assert out.returncode == 0, out.stderr
    print("memccapable: %s" % out.stdout.strip().splitlines()[-1])

def client_library(port):
    """libmemcached (Debian libmemcached-tools: memccp/memccat) set/get."""
    import tempfile
    d = tempfile.mkdtemp(prefix="mc-test-")
    path = os.path.join(d, "roundtrip.bin")
    data = bytes(random.Random(7).randrange(256) for _ in range(50000))
    open(path, "wb").write(data)
    servers = "--servers=127.0.0.1:%d" % port
    subprocess.run(["memccp", servers, path], check=True)
    got = subprocess.run(["memccat", servers, "roundtrip.bin"], check=True, capture_output=True).stdout
    assert got in (data, data + b"\n"), (len(got), len(data))   # memccat ends with a newline
    print("libmemcached: set/get round trip of 50000 bytes")

def stop(p):
    """One SIGTERM: the server must stop cleanly. A second one would hide a
    lost signal, which is a runtime defect (test/runtime/signal_in_thread.c)."""
    p.send_signal(signal.SIGTERM)
    return p.wait(timeout=120)

def run(scenario, extra):
    global PID
    p, port = start(*extra)
    PID = p.pid
    try:
        globals()[scenario](port)
    finally:
        if p.poll() is None:
            stop(p)
        assert p.returncode == 0, "exit %s" % p.returncode
    print("stop: clean")

def main():
    global SERVER
    SERVER, scenario = sys.argv[1], sys.argv[2]
    extra = {"eviction": ["-m", "2", "-I", "1m"], "maxconns": ["-c", "3"],
             "functional": ["--test-clock"]}.get(scenario, [])
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        run(scenario, extra)

main()
