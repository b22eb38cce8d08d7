"""tcp_forward.py — forwards connections from a port on 127.0.0.1 to HOST:PORT, as `kubectl
port-forward service/...` does for a client outside the cluster (the tests' node agents serve no
port-forward): PySpark sends a bearer token without TLS only to localhost.

  tcp_forward.py LOCAL_PORT_FILE HOST PORT   writes the chosen local port into LOCAL_PORT_FILE once
                                             listening; runs until killed
"""
import os
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    port_file, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    while True:
        client, _ = lsock.accept()
        try:
            upstream = socket.create_connection((host, port), timeout=10)
            upstream.settimeout(None)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main()
