"""fault_proxy.py — an HTTP proxy in front of the tests' S3 server that injects the faults S3
clients must survive: every Nth request is answered 503 SlowDown (S3's throttling answer), every
Mth has its connection reset before any answer; of the ranged GETs (reads of an object's bytes),
every Kth has its body cut off half-way (the headers promise all of it, then the connection
closes), the first and every Jth after it are never answered (the connection stays open and
silent until the client gives up), and with RANGE_AS_200 set to 1 every answer says 200 instead
of 206 (as a store that ignores ranges, whose 200 means the whole object from byte 0). The rest
are forwarded unchanged (the Host header too, so SigV4 signatures made for the proxy's address
still verify). 0 turns a fault off. With LOG_REQUESTS set to 1 every request is also printed as
received ("request=N METHOD PATH status=S": its path byte for byte, and the answer's status).

    fault_proxy.py PORT_FILE UPSTREAM_PORT SLOWDOWN_EVERY RESET_EVERY [CUT_EVERY [STALL_EVERY
                   [RANGE_AS_200 [LOG_REQUESTS]]]]

Writes its port to PORT_FILE once listening; counts of what it did go to stdout, one line per
fault. Runs until killed. Used by tests/s3/s3a_commit.sh and tests/s3/fs_s3a.sh.
"""
import http.client
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, upstream, slow_every, reset_every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cut_every = int(sys.argv[5]) if len(sys.argv) > 5 else 0
stall_every = int(sys.argv[6]) if len(sys.argv) > 6 else 0
range_as_200 = len(sys.argv) > 7 and sys.argv[7] == "1"
log_requests = len(sys.argv) > 8 and sys.argv[8] == "1"
lock = threading.Lock()
count = 0
ranged = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _any(self):
        global count, ranged
        r = 0
        with lock:
            count += 1
            n = count
            if self.command == "GET" and "Range" in self.headers:
                ranged += 1
                r = ranged
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if stall_every and r and (r - 1) % stall_every == 0:
            print(f"fault=stall request={n} {self.command} {self.path}", flush=True)
            self.connection.settimeout(120)
            try:
                while self.connection.recv(4096):  # until the client closes the connection
                    pass
            except OSError:
                pass
            self.close_connection = True
            return
        if slow_every and n % slow_every == 0:
            print(f"fault=slowdown request={n} {self.command} {self.path}", flush=True)
            msg = b"<?xml version='1.0'?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
            self.send_response(503)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(msg)
            return
        if reset_every and n % reset_every == 0:
            print(f"fault=reset request={n} {self.command} {self.path}", flush=True)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
            return
        conn = http.client.HTTPConnection("127.0.0.1", upstream, timeout=60)
        headers = {k: v for k, v in self.headers.items()}
        conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders(body if body else None)
        resp = conn.getresponse()
        data = resp.read()
        if log_requests:
            print(f"request={n} {self.command} {self.path} status={resp.status}", flush=True)
        as_200 = range_as_200 and r and resp.status == 206
        if as_200:
            print(f"fault=range_as_200 request={n} {self.command} {self.path}", flush=True)
            self.send_response_only(200, "OK")
        else:
            self.send_response_only(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in ("content-length", "transfer-encoding", "connection") and not (
                as_200 and k.lower() == "content-range"
            ):
                self.send_header(k, v)
        # a HEAD answer keeps the object's length
        length = resp.getheader("Content-Length") if self.command == "HEAD" else str(len(data))
        self.send_header("Content-Length", length or "0")
        self.end_headers()
        if cut_every and r and r % cut_every == 0 and resp.status == 206 and len(data) > 1:
            print(f"fault=cut request={n} {self.command} {self.path} sent={len(data) // 2} of={len(data)}", flush=True)
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
