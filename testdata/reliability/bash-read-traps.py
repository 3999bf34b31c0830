#!/usr/bin/env python3
# bash-read-traps.py: why panes' SIGWINCH tests do not wait in `read -t`.
# bash 5.2 on a pty, two experiments (run on an idle and a loaded machine):
#   lost-trap  a child traps WINCH and waits in `read -t 0.05` (or another
#              wait); one resize each try: how often the trap never runs.
#   cut-line   a child traps WINCH and reads lines in `read -r -t 0.05` (or
#              a blocking read) while SIGWINCHes arrive: the lines it
#              reads that are not a whole typed line.
# Usage: bash-read-traps.py [TRIES]
import fcntl, os, pty, random, re, select, signal, struct, sys, termios, threading, time

tries = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def spawn(script):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "-c", script])
    return pid, fd


def end(pid, fd):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)


def lost_trap(wait):
    lost = 0
    for _ in range(tries):
        pid, fd = spawn("trap 'echo \"winch:$(stty size)\"; exit 0' WINCH; echo ready; while :; do %s; done" % wait)
        out = b""
        while b"ready" not in out:
            out += os.read(fd, 1024)
        time.sleep(random.random() * 0.06)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        deadline = time.time() + 3
        while b"winch:" not in out and time.time() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 1024)
                except OSError:
                    break
        lost += b"winch:" not in out
        end(pid, fd)
    print(f"lost-trap  {wait!r:24}: the trap never ran in {lost} of {tries} tries")


def cut_line(read):
    pid, fd = spawn("trap 'echo \"winch $((++n))\"' WINCH; while :; do IFS= %s line; echo \"got:$line\"; done" % read)
    out = bytearray()

    def drain():
        try:
            while True:
                b = os.read(fd, 65536)
                if not b:
                    return
                out.extend(b)
        except OSError:
            return

    t = threading.Thread(target=drain)
    t.start()
    time.sleep(0.3)
    for i in range(tries):
        for _ in range(20):
            os.kill(pid, signal.SIGWINCH)
        os.write(fd, b"line%d\n" % i)
        for _ in range(20):
            os.kill(pid, signal.SIGWINCH)
        time.sleep(0.03)
    time.sleep(0.5)
    end(pid, fd)
    t.join()
    got = [l[4:] for l in out.decode(errors="replace").split("\r\n") if l.startswith("got:") and l != "got:"]
    cut = [l for l in got if not re.fullmatch(r"line\d+", l)]
    print(f"cut-line   {read!r:24}: {len(cut)} pieces of cut lines in {tries} lines typed {cut[:4]}")


lost_trap("read -t 0.05 x")
lost_trap("read x")
lost_trap("sleep 0.05")
cut_line("read -r -t 0.05")
cut_line("read -r")
