# Sends one TCP SYN or UDP datagram per input line "index proto source sport destination dport",
# all at once from non-blocking sockets bound to the given source, waits, and prints per index
# "REFUSED" when an ICMP port unreachable or RST came back, else "SILENT". Nothing is ever answered.
import errno, socket, sys, time
socks = []
for line in sys.stdin:
    f = line.split()
    if not f:
        continue
    idx, proto, src, sport, dst, dport = f[0], f[1], f[2], int(f[3]), f[4], int(f[5])
    kind = socket.SOCK_STREAM if proto == "TCP" else socket.SOCK_DGRAM
    s = socket.socket(socket.AF_INET6 if ":" in src else socket.AF_INET, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, sport))
    s.setblocking(False)
    try:
        s.connect((dst, dport))
        if kind == socket.SOCK_DGRAM:
            s.send(b"x")
    except OSError as e:
        if e.errno not in (errno.EINPROGRESS, errno.EAGAIN):
            print(idx, "ERROR", e.errno, flush=True)
    socks.append((idx, kind, s))
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
for idx, kind, s in socks:
    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if kind == socket.SOCK_DGRAM and err == 0:
        try:
            s.recv(1)
        except OSError as e:
            err = e.errno
    # only a port unreachable or a reset: a DNAT target that never resolves gives EHOSTUNREACH
    print(idx, "REFUSED" if err == errno.ECONNREFUSED else "SILENT")
    s.close()
