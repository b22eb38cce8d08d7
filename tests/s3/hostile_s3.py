"""hostile_s3.py — an S3 endpoint that misbehaves on purpose, for what a real server will not do on
demand: the bucket named in the path answers according to its name (no signature is checked).

  repeat-token   every ListObjectsV2 page holds one key and says IsTruncated with the same
                 NextContinuationToken, for ever
  empty-pages    every page is truncated, holds no key and no prefix, and gives a new token
  endless-list   a 200 listing whose body never ends (chunked, a <Contents> after another)
  endless-error  any request is answered 400 with an error body that never ends
  verbatim       an object store keeping each key exactly as the request path names it (PUT,
                 GET, HEAD, ListObjectsV2 without paging): a key with "." or ".." segments is
                 a key of its own, as on AWS S3

    hostile_s3.py PORT_FILE

Writes its port to PORT_FILE once listening; one line per request goes to stdout
("bucket=B method=M path=P"), so a test can count them. Runs until killed. Used by
tests/s3/s3a_hostile.sh.
"""
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape

port_file = sys.argv[1]
lock = threading.Lock()
objects = {}  # verbatim: key -> bytes
pages = 0


def listing(keys, truncated, token):
    body = "<?xml version='1.0' encoding='UTF-8'?><ListBucketResult><Name>b</Name>"
    for k, size in keys:
        body += f"<Contents><Key>{escape(k)}</Key><Size>{size}</Size></Contents>"
    body += f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>"
    if token:
        body += f"<NextContinuationToken>{escape(token)}</NextContinuationToken>"
    return (body + "</ListBucketResult>").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, ctype="application/xml"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def endless(self, status, head, item):
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = item * max(1, 65536 // len(item))
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
            while True:  # until the client hangs up
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass
        self.close_connection = True

    def _any(self):
        global pages
        raw, _, query = self.path.partition("?")
        bucket, _, key = raw.lstrip("/").partition("/")
        key = urllib.parse.unquote(key)
        params = urllib.parse.parse_qs(query, keep_blank_values=True)
        print(f"bucket={bucket} method={self.command} path={self.path}", flush=True)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        listing_req = self.command == "GET" and not key and "list-type" in params
        if self.command == "HEAD" and bucket.startswith("endless-"):
            self.answer(404 if bucket == "endless-list" else 400, b"")
        elif bucket == "endless-error":
            self.endless(400, b"<?xml version='1.0'?><Error><Code>InvalidRequest</Code><Message>",
                         b"lorem ipsum ")
        elif bucket == "repeat-token" and listing_req:
            self.answer(200, listing([("k/a.txt", 1)], True, "same-token"))
        elif bucket == "empty-pages" and listing_req:
            with lock:
                pages += 1
                n = pages
            self.answer(200, listing([], True, f"token-{n}"))
        elif bucket == "endless-list" and listing_req:
            self.endless(200, b"<?xml version='1.0'?><ListBucketResult><Name>endless-list</Name>",
                         b"<Contents><Key>k/a.txt</Key><Size>1</Size></Contents>")
        elif bucket == "verbatim":
            with lock:
                if self.command == "PUT":
                    objects[key] = body
                    self.answer(200, b"")
                elif listing_req:
                    prefix = params.get("prefix", [""])[0]
                    keys = sorted((k, len(v)) for k, v in objects.items() if k.startswith(prefix))
                    self.answer(200, listing(keys, False, None))
                elif key in objects and self.headers.get("Range", "").startswith("bytes="):
                    data = objects[key]
                    first, _, last = self.headers["Range"][6:].partition("-")
                    a, b = int(first), min(int(last or len(data) - 1), len(data) - 1)
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {a}-{b}/{len(data)}")
                    self.send_header("Content-Length", str(b - a + 1))
                    self.end_headers()
                    self.wfile.write(data[a : b + 1])
                elif key in objects:
                    self.answer(200, objects[key], "application/octet-stream")
                else:
                    self.answer(404, b"<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>")
        else:
            self.answer(404, b"<?xml version='1.0'?><Error><Code>NoSuchKey</Code></Error>")

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
