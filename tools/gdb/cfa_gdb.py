# cfa-lite's gdb extension: user threads as first-class objects.
#
#   info cfa-threads          every live user thread: id, name, type, state,
#                             the processor it last ran on, what it waits on
#   cfa-thread N bt [args]    the backtrace of user thread N (parked or ready:
#                             its saved context; running: its processor's)
#   cfa-thread N frame        select ... (any gdb command that reads frames)
#
# The runtime embeds this script in the programs it is linked into
# (runtime/src/gdb_scripts.S, section .debug_gdb_scripts), so gdb loads it
# on its own where its auto-load safe-path allows the program.
#
# How a parked thread's stack is shown: cfa_context_switch saved its
# callee-saved registers and return address at the thread's saved stack
# pointer (the frame layout in runtime/src/context_x86_64.S); the command
# points the selected frame's rsp, rbp and rip there, runs the command,
# and puts the registers back.
import gdb

STATES = {0: "inactive", 1: "ready", 2: "running", 3: "blocked", 4: "halted"}


def live_threads():
    head = gdb.parse_and_eval("'registry.c'::threads")
    t = head
    while int(t) != 0:
        yield t
        t = t["all_next"]


def text(p):
    return p.string() if int(p) != 0 else ""


def describe(t):
    self = t["self"]
    type_name = text(self["type_name"]) or "?"
    name = text(self["name"]) or type_name
    state = STATES.get(int(t["state"]), str(int(t["state"])))
    proc = t["last_processor"]
    where = text(proc["name"]) if int(proc) != 0 else ""
    waits = text(t["wait_reason"]) if state == "blocked" else ""
    if state == "blocked" and not waits:
        waits = "park"
    return int(t["id"]), name, type_name, state, where, waits


class InfoCfaThreads(gdb.Command):
    """List every live cfa-lite user thread: id, name, type, state, the
    processor it last ran on, and what a blocked thread waits on."""

    def __init__(self):
        super().__init__("info cfa-threads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        rows = [describe(t) for t in live_threads()]
        print("%4s  %-20s %-16s %-9s %-12s %s" % ("Id", "Name", "Type", "State", "Processor", "Waits on"))
        for r in sorted(rows):
            print("%4d  %-20s %-16s %-9s %-12s %s" % r)


class CfaThread(gdb.Command):
    """cfa-thread N COMMAND: run a gdb command (bt, frame, info frame, ...)
    on user thread N's saved context."""

    def __init__(self):
        super().__init__("cfa-thread", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        parts = arg.split(None, 1)
        if len(parts) < 2:
            raise gdb.GdbError("usage: cfa-thread N COMMAND (for example: cfa-thread 2 bt)")
        wanted = int(parts[0])
        target = next((t for t in live_threads() if int(t["id"]) == wanted), None)
        if target is None:
            raise gdb.GdbError("no live cfa-lite thread with id %d (info cfa-threads lists them)" % wanted)
        state = int(target["state"])
        if state == 2:
            raise gdb.GdbError("thread %d is running on a processor: select that kernel thread "
                               "(info threads) and use the command directly" % wanted)
        if state in (0, 4):
            raise gdb.GdbError("thread %d has no stack (%s)" % (wanted, STATES[state]))
        sp = int(target["current"]["ctx"]["sp"])
        words = gdb.lookup_type("unsigned long").pointer()
        frame = gdb.Value(sp).cast(words)
        saved_rbp, saved_rip = int(frame[6]), int(frame[7])
        gdb.execute("frame 0", to_string=True)
        old = {r: int(gdb.parse_and_eval("$" + r)) for r in ("rsp", "rbp", "rip")}
        try:
            gdb.execute("set $rsp = %d" % (sp + 64))
            gdb.execute("set $rbp = %d" % saved_rbp)
            gdb.execute("set $rip = %d" % saved_rip)
            gdb.execute(parts[1], from_tty)
        finally:
            gdb.execute("frame 0", to_string=True)
            for r, v in old.items():
                gdb.execute("set $%s = %d" % (r, v))


InfoCfaThreads()
CfaThread()
