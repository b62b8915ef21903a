"""Plays an editor against cfa-lsp: initialize, open a file (the buffer's
text, not the file on disk), save it with other text, shut down. Prints
each published diagnostic as `publish <file> <line>:<col> <severity> <message>`
(1-based, as compilers print them)."""
import json
import subprocess
import sys

server, path, first_text, second_text = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
uri = "file://" + path
proc = subprocess.Popen([sys.executable, server] + sys.argv[5:], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE)


def send(msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive():
    length = None
    while True:
        line = proc.stdout.readline().decode().strip()
        if not line:
            break
        if line.lower().startswith("content-length:"):
            length = int(line.split(":")[1])
    return json.loads(proc.stdout.read(length))


def show(msg):
    assert msg["method"] == "textDocument/publishDiagnostics", msg
    for d in msg["params"]["diagnostics"]:
        s = d["range"]["start"]
        print("publish %s %d:%d %d %s" % (msg["params"]["uri"].rsplit("/", 1)[1], s["line"] + 1,
                                          s["character"] + 1, d["severity"], d["message"]))
    print("published %d" % len(msg["params"]["diagnostics"]))


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
print("server", receive()["result"]["serverInfo"]["name"])
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "c", "version": 1, "text": open(first_text).read()}}})
show(receive())
send({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {
    "textDocument": {"uri": uri}, "text": open(second_text).read()}})
show(receive())
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
receive()
send({"jsonrpc": "2.0", "method": "exit"})
print("exit", proc.wait(timeout=10))
