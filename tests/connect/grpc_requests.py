"""grpc_requests.py — requests a Spark Connect client never sends, at a running cspark-connect-server
(run by tests/connect/pyspark_client.sh): each must get a gRPC error, and the server must go on
serving.

  grpc_requests.py PORT MAX_MESSAGE TOKEN

  - a message that is not protobuf                       -> INVALID_ARGUMENT
  - a message larger than spark.connect.grpc.maxInboundMessageSize -> RESOURCE_EXHAUSTED
  - an unknown method                                    -> UNIMPLEMENTED
  - a message cut short (raw HTTP/2 through h2: the 5-byte prefix announces more than is sent)
                                                         -> INTERNAL, in the trailers
  - bytes that are not HTTP/2 on the port                -> the connection is closed
  - a call without the bearer token                      -> UNAUTHENTICATED
and a well-formed Config call answers after each of them.
"""
import socket
import sys
import uuid

import grpc
import h2.config
import h2.connection
import h2.events
from connect_checks import fail

port, max_message, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
target = "127.0.0.1:%d" % port
auth = [("authorization", "Bearer " + token)]
SERVICE = "/spark.connect.SparkConnectService/"


def config_request():
    # a ConfigRequest{session_id, operation{get_all{}}}, built from the pinned client's messages
    import pyspark.sql.connect.proto as pb2

    req = pb2.ConfigRequest(session_id=str(uuid.uuid4()))
    req.operation.get_all.SetInParent()
    return req.SerializeToString()


channel = grpc.insecure_channel(target)


def raw_call(method, body, metadata=auth):
    call = channel.unary_unary(SERVICE + method)  # bytes in, bytes out
    return call(body, metadata=metadata, timeout=30)


def expect(code, method, body, metadata=auth):
    try:
        raw_call(method, body, metadata)
    except grpc.RpcError as e:
        if e.code() != code:
            fail("%s: expected %s, got %s (%s)" % (method, code, e.code(), e.details()))
        return
    fail("%s: expected %s, got an answer" % (method, code))


def still_serving(step):
    try:
        raw_call("Config", config_request())
    except grpc.RpcError as e:
        fail("after %s the server does not answer: %s %s" % (step, e.code(), e.details()))


expect(grpc.StatusCode.INVALID_ARGUMENT, "Config", b"\xff\xff\xff\xff\x0f garbage")
still_serving("a message that is not protobuf")
expect(grpc.StatusCode.RESOURCE_EXHAUSTED, "Config", b"\x00" * (max_message + 10))
still_serving("an oversized message")
expect(grpc.StatusCode.UNIMPLEMENTED, "NoSuchMethod", config_request())
still_serving("an unknown method")
expect(grpc.StatusCode.UNAUTHENTICATED, "Config", config_request(), metadata=[])
expect(grpc.StatusCode.UNAUTHENTICATED, "Config", config_request(),
       metadata=[("authorization", "Bearer wrong")])
still_serving("calls without the token")

# a message cut short, through raw HTTP/2
s = socket.create_connection(("127.0.0.1", port), timeout=30)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
conn.initiate_connection()
sid = conn.get_next_available_stream_id()
conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":path", SERVICE + "Config"),
                        (":authority", target), ("content-type", "application/grpc"),
                        ("te", "trailers"), ("authorization", "Bearer " + token)])
conn.send_data(sid, b"\x00\x00\x00\x01\x00" + b"ab", end_stream=True)  # announces 256 bytes
s.sendall(conn.data_to_send())
status = None
while status is None:
    data = s.recv(65536)
    if not data:
        fail("the connection closed without an answer to a message cut short")
    for ev in conn.receive_data(data):
        headers = getattr(ev, "headers", None)
        if isinstance(ev, (h2.events.TrailersReceived, h2.events.ResponseReceived)) and headers:
            for k, v in headers:
                if k in (b"grpc-status", "grpc-status"):
                    status = int(v)
    s.sendall(conn.data_to_send())
s.close()
if status != grpc.StatusCode.INTERNAL.value[0]:
    fail("a message cut short: grpc-status %s, expected INTERNAL" % status)
still_serving("a message cut short")

# bytes that are not HTTP/2
s = socket.create_connection(("127.0.0.1", port), timeout=30)
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + bytes(range(256)) * 64)
closed = False
try:
    while True:
        data = s.recv(65536)
        if not data:
            closed = True
            break
except ConnectionResetError:
    closed = True
s.close()
if not closed:
    fail("a connection speaking no HTTP/2 was not closed")
still_serving("bytes that are not HTTP/2")
print("PASS grpc_requests")
