#!/usr/bin/env python3
# probe.py: examples/httpd as an attacker and an operator would try it
# (issue 27's "done when" probes), against nginx where nginx has an answer.
#
#   probe.py slow HTTPD [N]     N (1000) connections sending a header byte a
#                               second; GET latency of another client on
#                               both servers, taking turns (p50, p99, max)
#   probe.py fdlimit HTTPD [N]  RLIMIT_NOFILE 256 and N (1000) connections
#                               held, on both I/O engines: idle CPU, the
#                               statuses of existing files, recovery
#   probe.py memory HTTPD [N]   RSS per idle connection (N, 1000, held)
#
# HTTPD is a built examples/httpd; nginx is Debian's (nginx-light: apt-get
# install nginx-light). Results go to standard output.
import os, resource, signal, socket, statistics, subprocess, sys, tempfile, threading, time

here = os.path.dirname(os.path.abspath(__file__))
NGINX = "/usr/sbin/nginx"

def fileset(tmp):
    subprocess.run([sys.executable, os.path.join(here, "fileset.py"), os.path.join(tmp, "root"), "100"], check=True)
    os.chmod(tmp, 0o755)
    return os.path.join(tmp, "root")

def start_cfa(httpd, root, env=None, nofile=None, extra=()):
    def limit():
        if nofile: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.Popen([httpd, "--port", "0", "--root", root, "--processors", "2", *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, preexec_fn=limit)
    port = int(p.stdout.readline().rsplit(":", 1)[1])
    return p, port

def start_nginx(tmp, root):
    ngx = os.path.join(tmp, "ngx"); os.makedirs(os.path.join(ngx, "logs"), exist_ok=True)
    conf = os.path.join(ngx, "nginx.conf")
    temp = " ".join("%s_temp_path %s/%s;" % (k, ngx, k[0]) for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    open(conf, "w").write(
        "worker_processes 2; daemon off; pid %s/nginx.pid; error_log %s/logs/error.log;\n"
        "worker_rlimit_nofile 8192; events { worker_connections 4096; }\n"
        "http { access_log off; sendfile on; %s server { listen 127.0.0.1:18090; root %s; } }\n" % (ngx, ngx, temp, root))
    p = subprocess.Popen([NGINX, "-p", ngx, "-c", conf])
    for _ in range(50):
        try: socket.create_connection(("127.0.0.1", 18090)).close(); break
        except OSError: time.sleep(0.1)
    return p, 18090

def get(port, path=b"/f0", timeout=30):
    t = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n")
    data = b""
    while (d := s.recv(65536)): data += d
    s.close()
    return int(data.split(b" ", 2)[1]), (time.perf_counter() - t) * 1000

def pct(xs, q):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(q * len(xs)))]

def slow_round(port, n, gets):
    """n slow connections trickling header bytes while `gets` GETs are timed."""
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    stop = threading.Event()
    def trickle():
        line, i = b"GET /f0 HTTP/1.1\r\nHost: p\r\nX-Slow: " + b"a" * 100, 0
        while not stop.is_set():
            for s in slow:
                try: s.send(line[i % len(line):i % len(line) + 1])
                except OSError: pass
            i += 1; stop.wait(1.0)
    t = threading.Thread(target=trickle); t.start(); time.sleep(1)
    lat, ok = [], 0
    for _ in range(gets):
        try:
            st, ms = get(port); ok += st == 200; lat.append(ms)
        except OSError:
            pass
        time.sleep(0.02)
    stop.set(); t.join()
    for s in slow: s.close()
    return ok, lat

def slow(httpd, n=1000, gets=150, rounds=3):
    tmp = tempfile.mkdtemp(); root = fileset(tmp)
    res = {"nginx": ([], 0), "cfa": ([], 0)}
    for r in range(rounds):            # the servers take turns: the same machine load for both
        for name in ("nginx", "cfa"):
            p, port = start_nginx(tmp, root) if name == "nginx" else start_cfa(httpd, root)
            ok, lat = slow_round(port, n, gets)
            p.send_signal(signal.SIGTERM if name == "cfa" else signal.SIGQUIT); p.wait(30)
            res[name] = (res[name][0] + lat, res[name][1] + ok)
            print("round %d %-5s %d/%d GETs, p50 %.2f ms, p99 %.2f ms" % (r + 1, name, ok, gets, pct(lat, .5), pct(lat, .99)), flush=True)
    for name, (lat, ok) in res.items():
        print("%-5s %d slow connections: %d/%d GETs served, p50 %.2f ms, p99 %.2f ms, max %.2f ms" %
              (name, n, ok, gets * rounds, pct(lat, .5), pct(lat, .99), max(lat)))
    print("p99 cfa/nginx: %.2f" % (pct(res["cfa"][0], .99) / pct(res["nginx"][0], .99)))

def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def fdlimit(httpd, n=1000):
    tmp = tempfile.mkdtemp(); root = fileset(tmp)
    for engine in ("io_uring", "fallback"):
        env = {k: v for k, v in os.environ.items() if k != "CFA_IO"}
        if engine == "fallback": env["CFA_IO"] = "fallback"
        p, port = start_cfa(httpd, root, env=env, nofile=256)
        c0 = cpu_seconds(p.pid); time.sleep(3)
        idle_empty = (cpu_seconds(p.pid) - c0) / 3 * 100
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
        time.sleep(2)
        c0 = cpu_seconds(p.pid); time.sleep(5)
        idle_full = (cpu_seconds(p.pid) - c0) / 5 * 100
        statuses = {}
        for s in held:
            try:
                s.settimeout(0.05); s.sendall(b"GET /f0 HTTP/1.1\r\nHost: p\r\n\r\n")
                st = int(s.recv(100).split(b" ", 2)[1]); statuses[st] = statuses.get(st, 0) + 1
            except (socket.timeout, OSError, IndexError, ValueError):
                statuses["not accepted yet"] = statuses.get("not accepted yet", 0) + 1
        for s in held: s.close()
        t = time.time()
        while True:
            try:
                if get(port, timeout=5)[0] == 200: break
            except OSError: pass
            time.sleep(0.05)
        resumed = time.time() - t
        p.send_signal(signal.SIGTERM); _, err = p.communicate(timeout=60)
        logged = [l for l in err.splitlines() if "accept:" in l]
        print("%-8s ulimit -n 256: idle CPU %.2f%% (no client), %.2f%% (%d connections held); statuses %s; "
              "a new GET served %.2f s after the clients left; %d accept log line(s): %s" %
              (engine, idle_empty, idle_full, n, statuses, resumed, len(logged), logged[0] if logged else ""))

def rss_kib(pid):
    for l in open("/proc/%d/status" % pid):
        if l.startswith("VmRSS:"): return int(l.split()[1])

def memory(httpd, n=1000):
    tmp = tempfile.mkdtemp(); root = fileset(tmp)
    p, port = start_cfa(httpd, root)
    for _ in range(20): get(port)
    time.sleep(0.5); before = rss_kib(p.pid)
    held = []
    for _ in range(n):   # each has made a request and waits idle for the next
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /f0 HTTP/1.1\r\nHost: p\r\n\r\n"); s.recv(65536); held.append(s)
    time.sleep(1); after = rss_kib(p.pid)
    print("RSS %d KiB, with %d idle keep-alive connections %d KiB: %.1f KiB per idle connection" %
          (before, n, after, (after - before) / n))
    for s in held: s.close()
    p.send_signal(signal.SIGTERM); p.wait(30)

if __name__ == "__main__":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)   # the probes' own sockets
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    globals()[sys.argv[1]](sys.argv[2], *map(int, sys.argv[3:]))
