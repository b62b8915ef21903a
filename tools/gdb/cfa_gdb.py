# cfa-lite's gdb extension: user threads and coroutines as first-class
# objects.
#
#   info cfa-threads          every live user thread: id, name, type, state,
#                             the processor it last ran on, what it waits on
#   cfa-thread N bt [args]    the backtrace of user thread N (parked or ready:
#                             its saved context; running: its processor's)
#   cfa-thread N frame        select ... (any gdb command that reads frames)
#   info cfa-coroutines       every started coroutine: those each live thread
#                             is inside (the one it runs and the chain of its
#                             resumers), then the suspended ones
#   cfa-coroutine EXPR bt     the backtrace of a coroutine that is not
#                             running: EXPR (one word) is the coroutine
#                             object (a variable of a coroutine type, or a
#                             pointer to one), or a number that info
#                             cfa-coroutines shows
#
# The runtime embeds this script in the programs it is linked into
# (runtime/src/gdb_scripts.S, section .debug_gdb_scripts), so gdb loads it
# on its own where its auto-load safe-path allows the program.
#
# How a parked thread's or a suspended coroutine's stack is shown:
# cfa_context_switch saved its callee-saved registers and return address
# at the saved stack pointer (the frame layout in
# runtime/src/context_x86_64.S); the command points the selected frame's
# rsp, rbp and rip there, runs the command, and puts the registers back.
import gdb

STATES = {0: "inactive", 1: "ready", 2: "running", 3: "blocked", 4: "halted"}


def registry_list(name):
    """The elements of one of the runtime's registry lists (registry.c)."""
    x = gdb.parse_and_eval("'registry.c'::" + name)
    while int(x) != 0:
        yield x
        x = x["all_next"]


def live_threads():
    return registry_list("threads")


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


def object_and_command(arg, usage):
    """[what, command] from 'WHAT COMMAND...', or the usage as an error."""
    parts = arg.split(None, 1)
    if len(parts) < 2:
        raise gdb.GdbError("usage: " + usage)
    return parts


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
        parts = object_and_command(arg, "cfa-thread N COMMAND (for example: cfa-thread 2 bt)")
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
        if sp == 0:
            raise gdb.GdbError("thread %d has not run yet: its first frame is built when a processor "
                               "first runs it" % wanted)
        run_on_context(sp, parts[1], from_tty)


def run_on_context(sp, command, from_tty):
    """Runs a gdb command with frame 0's registers set to the context
    that cfa_context_switch saved at sp."""
    words = gdb.lookup_type("unsigned long").pointer()
    frame = gdb.Value(sp).cast(words)
    saved_rbp, saved_rip = int(frame[6]), int(frame[7])
    gdb.execute("frame 0", to_string=True)
    old = {r: int(gdb.parse_and_eval("$" + r)) for r in ("rsp", "rbp", "rip")}
    try:
        gdb.execute("set $rsp = %d" % (sp + 64))
        gdb.execute("set $rbp = %d" % saved_rbp)
        gdb.execute("set $rip = %d" % saved_rip)
        gdb.execute(command, from_tty)
    finally:
        gdb.execute("frame 0", to_string=True)
        for r, v in old.items():
            gdb.execute("set $%s = %d" % (r, v))


COROUTINE_STATES = {0: "inactive", 1: "active", 2: "halted"}
MAX_CHAIN = 10000  # a resume chain longer than this is corrupt memory


def coroutine_chains():
    """(thread, depth, coroutine) for the coroutines each live thread is
    inside: depth 0 is the one it runs, depth d+1 the one that resumed
    depth d; the thread's own stack ends the chain."""
    for t in live_threads():
        own = t["self"].address
        c = t["current"]
        depth = 0
        while int(c) != 0 and int(c) != int(own) and depth < MAX_CHAIN:
            yield t, depth, c
            c = c["last"]
            depth += 1


def all_coroutines():
    """(thread, depth, coroutine) for every started coroutine: the chains
    first, then the suspended coroutines no thread is inside (thread and
    depth None)."""
    listed = set()
    for t, depth, c in coroutine_chains():
        listed.add(int(c))
        yield t, depth, c
    for c in registry_list("coroutines"):
        if int(c) not in listed:
            yield None, None, c


def coroutine_pointer(arg):
    """The struct cfa_coroutine * that arg names: a number from info
    cfa-coroutines, a coroutine object or a pointer to one."""
    arg = arg.strip()
    if arg.isdigit():
        listed = list(all_coroutines())
        if int(arg) >= len(listed):
            raise gdb.GdbError("no coroutine %s (info cfa-coroutines lists them)" % arg)
        return listed[int(arg)][2]
    value = gdb.parse_and_eval(arg)
    if value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        value = value.dereference()
    kind = value.type.strip_typedefs()
    if kind.tag == "cfa_coroutine":
        return value.address
    if kind.code == gdb.TYPE_CODE_STRUCT and any(f.name == "__cfa_cor" for f in kind.fields()):
        return value["__cfa_cor"].address
    raise gdb.GdbError("%s is not a coroutine (a variable of a coroutine type, or a pointer to one)" % arg)


class InfoCfaCoroutines(gdb.Command):
    """List every started cfa-lite coroutine: those each live thread is
    inside, the one it runs (depth 0) and the chain of those that resumed
    it, then the suspended ones no thread is inside. cfa-coroutine N bt
    shows the stack of one that is not running."""

    def __init__(self):
        super().__init__("info cfa-coroutines", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        print("%4s  %-8s %-5s  %-16s %-20s %s" % ("Num", "Thread", "Depth", "Type", "Name", "State"))
        for num, (t, depth, c) in enumerate(all_coroutines()):
            type_name = text(c["type_name"]) or "?"
            state = "suspended" if t is None else "running" if depth == 0 else "resuming"
            print("%4d  %-8s %-5s  %-16s %-20s %s" % (num, "-" if t is None else int(t["id"]),
                                                      "-" if t is None else depth, type_name,
                                                      text(c["name"]) or type_name, state))


class CfaCoroutine(gdb.Command):
    """cfa-coroutine EXPR COMMAND: run a gdb command (bt, frame, ...) on the
    saved context of a coroutine that is not running. EXPR: a coroutine
    object, a pointer to one, or a number from info cfa-coroutines."""

    def __init__(self):
        super().__init__("cfa-coroutine", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        parts = object_and_command(arg, "cfa-coroutine EXPR COMMAND (for example: cfa-coroutine fib bt)")
        c = coroutine_pointer(parts[0])
        state = int(c["state"])
        if state != 1:
            raise gdb.GdbError("the coroutine has no stack (%s)" % COROUTINE_STATES.get(state, str(state)))
        for t in live_threads():
            if int(t["current"]) == int(c) and int(t["state"]) == 2:
                raise gdb.GdbError("the coroutine is running on thread %d: select its kernel thread "
                                   "(info threads) and use the command directly" % int(t["id"]))
        run_on_context(int(c["ctx"]["sp"]), parts[1], from_tty)


InfoCfaThreads()
CfaThread()
InfoCfaCoroutines()
CfaCoroutine()
