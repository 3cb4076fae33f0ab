"""The tests' ListenBrainz and Last.fm on 127.0.0.1:PORT, checking what their documentation asks.

ListenBrainz (https://listenbrainz.readthedocs.io/en/latest/users/api/core.html):
  POST /1/submit-listens               `Authorization: Token TOKEN`; JSON {listen_type, payload}
  POST /1/feedback/recording-feedback  `Authorization: Token TOKEN`; JSON {recording_mbid, score}
Last.fm API 2.0 (https://www.last.fm/api), at /2.0/, parameters in a form body or the query:
  auth.getToken, auth.getSession (the first asks answer error 14: not authorized yet),
  track.scrobble (batches of at most 50), track.updateNowPlaying; every call signed:
  api_sig = md5 of the parameters sorted by name (name then value, `format` and `callback`
  left out) followed by the secret.
And for the grant tests: GET /redirect?to=URL (a 307 there), GET /big?bytes=N (N bytes),
GET /slow?seconds=N (the answer after N seconds).

Each request, and each listen taken or refused, is appended to LOG as a JSON line.
Usage: scrobble_server.py PORT LOG TOKEN API_KEY SECRET SESSION_KEY
"""
import hashlib
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, LOG, TOKEN, API_KEY, SECRET, SESSION = sys.argv[1:7]
lock = threading.Lock()
state = {"session_asks": 0}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def record(entry):
    with lock, open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry, ensure_ascii=False) + "\n")


def listen_problem(listen, listen_type):
    if not isinstance(listen, dict):
        return "a listen is not an object"
    if listen_type == "playing_now":
        if "listened_at" in listen:
            return "playing_now has no listened_at"
    elif not isinstance(listen.get("listened_at"), int) or isinstance(listen.get("listened_at"), bool):
        return "listened_at must be an integer"
    metadata = listen.get("track_metadata")
    if not isinstance(metadata, dict):
        return "track_metadata missing"
    for key in ("artist_name", "track_name"):
        if not isinstance(metadata.get(key), str) or not metadata[key]:
            return key + " must be a non-empty string"
    if "release_name" in metadata and not isinstance(metadata["release_name"], str):
        return "release_name must be a string"
    info = metadata.get("additional_info", {})
    if not isinstance(info, dict):
        return "additional_info must be an object"
    for key in ("recording_mbid", "release_mbid", "release_group_mbid"):
        if key in info and not UUID.match(str(info[key])):
            return key + " is not a MusicBrainz id"
    if "artist_mbids" in info and not (isinstance(info["artist_mbids"], list) and all(UUID.match(str(m)) for m in info["artist_mbids"])):
        return "artist_mbids must be a list of MusicBrainz ids"
    if len(json.dumps(listen)) > 10240:
        return "a listen is larger than 10240 bytes"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, document, headers=()):
        body = json.dumps(document).encode() if not isinstance(document, bytes) else document
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        record({"kind": "request", "method": "GET", "path": url.path})
        if url.path == "/redirect":
            return self.answer(307, {}, [("Location", query["to"])])
        if url.path == "/big":
            return self.answer(200, b"x" * int(query.get("bytes", "0")))
        if url.path == "/slow":
            time.sleep(float(query.get("seconds", "1")))
            return self.answer(200, {"slept": True})
        if url.path == "/2.0/":
            return self.lastfm(query)
        return self.answer(404, {"code": 404, "error": "not here"})

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        body = self.body()
        record({"kind": "request", "method": "POST", "path": url.path})
        if url.path == "/2.0/":
            params = dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
            params.update(dict(urllib.parse.parse_qsl(url.query)))
            return self.lastfm(params)
        if url.path == "/redirect":
            query = dict(urllib.parse.parse_qsl(url.query))
            return self.answer(307, {}, [("Location", query["to"])])
        if url.path.startswith("/1/"):
            return self.listenbrainz(url.path, body)
        return self.answer(404, {"code": 404, "error": "not here"})

    # ListenBrainz

    def listenbrainz(self, path, body):
        if self.headers.get("Authorization") != "Token " + TOKEN:
            record({"kind": "refused", "service": "listenbrainz", "reason": "token"})
            return self.answer(401, {"code": 401, "error": "You need to provide an Authorization header."})
        try:
            document = json.loads(body)
        except ValueError:
            return self.refuse("listenbrainz", "the body is not JSON")
        if path == "/1/feedback/recording-feedback":
            if not UUID.match(str(document.get("recording_mbid"))) or document.get("score") not in (-1, 0, 1):
                return self.refuse("listenbrainz", "feedback needs recording_mbid and a score of -1, 0 or 1")
            record({"kind": "feedback", "service": "listenbrainz", "recording_mbid": document["recording_mbid"], "score": document["score"]})
            return self.answer(200, {"status": "ok"})
        if path != "/1/submit-listens":
            return self.answer(404, {"code": 404, "error": "not here"})
        listen_type = document.get("listen_type")
        payload = document.get("payload")
        if listen_type not in ("single", "import", "playing_now") or not isinstance(payload, list) or not payload:
            return self.refuse("listenbrainz", "listen_type must be single, import or playing_now, with a payload")
        if listen_type != "import" and len(payload) != 1:
            return self.refuse("listenbrainz", listen_type + " takes exactly one listen")
        if len(payload) > 1000:
            return self.refuse("listenbrainz", "at most 1000 listens a request")
        for listen in payload:
            problem = listen_problem(listen, listen_type)
            if problem:
                return self.refuse("listenbrainz", problem)
        for listen in payload:
            metadata = listen["track_metadata"]
            record({"kind": "now_playing" if listen_type == "playing_now" else "listen", "service": "listenbrainz",
                    "listen_type": listen_type, "listened_at": listen.get("listened_at"), "artist": metadata["artist_name"],
                    "track": metadata["track_name"], "album": metadata.get("release_name"),
                    "additional_info": metadata.get("additional_info", {})})
        return self.answer(200, {"status": "ok"})

    def refuse(self, service, reason):
        record({"kind": "refused", "service": service, "reason": reason})
        return self.answer(400, {"code": 400, "error": reason})

    # Last.fm

    def lastfm_error(self, status, code, message):
        record({"kind": "refused", "service": "lastfm", "reason": message, "code": code})
        return self.answer(status, {"error": code, "message": message})

    def lastfm(self, params):
        signature = params.get("api_sig")
        signed = "".join(name + params[name] for name in sorted(params) if name not in ("format", "callback", "api_sig"))
        if params.get("api_key") != API_KEY:
            return self.lastfm_error(403, 10, "Invalid API key - You must be granted a valid key by last.fm")
        if signature != hashlib.md5((signed + SECRET).encode()).hexdigest():
            return self.lastfm_error(403, 13, "Invalid method signature supplied")
        if params.get("format") != "json":
            return self.lastfm_error(400, 6, "this test server answers format=json only")
        method = params.get("method")
        if method == "auth.getToken":
            return self.answer(200, {"token": "test-token"})
        if method == "auth.getSession":
            if params.get("token") != "test-token":
                return self.lastfm_error(403, 4, "Invalid authentication token supplied")
            with lock:
                state["session_asks"] += 1
                asks = state["session_asks"]
            if asks == 1:
                return self.lastfm_error(403, 14, "This token has not been authorized")
            return self.answer(200, {"session": {"name": "tester", "key": SESSION, "subscriber": 0}})
        if params.get("sk") != SESSION:
            return self.lastfm_error(403, 9, "Invalid session key - Please re-authenticate")
        if method == "track.updateNowPlaying":
            if not params.get("artist") or not params.get("track"):
                return self.lastfm_error(400, 6, "artist and track are required")
            record({"kind": "now_playing", "service": "lastfm", "artist": params["artist"], "track": params["track"]})
            return self.answer(200, {"nowplaying": {"track": {"#text": params["track"]}, "artist": {"#text": params["artist"]}}})
        if method == "track.scrobble":
            indexes = sorted({int(m.group(1)) for m in (re.match(r"^\w+\[(\d+)\]$", name) for name in params) if m})
            if not indexes or indexes != list(range(len(indexes))):
                return self.lastfm_error(400, 6, "scrobbles are numbered from [0] without gaps")
            if len(indexes) > 50:
                return self.lastfm_error(400, 6, "at most 50 scrobbles a batch")
            for i in indexes:
                for key in ("artist", "track", "timestamp"):
                    if not params.get("%s[%d]" % (key, i)):
                        return self.lastfm_error(400, 6, "%s[%d] is required" % (key, i))
            for i in indexes:
                record({"kind": "listen", "service": "lastfm", "listened_at": int(params["timestamp[%d]" % i]),
                        "artist": params["artist[%d]" % i], "track": params["track[%d]" % i],
                        "album": params.get("album[%d]" % i), "mbid": params.get("mbid[%d]" % i), "batch": len(indexes)})
            return self.answer(200, {"scrobbles": {"@attr": {"accepted": len(indexes), "ignored": 0}}})
        return self.lastfm_error(400, 3, "Invalid Method - No method with that name in this package")


server = ThreadingHTTPServer(("127.0.0.1", int(PORT)), Handler)
server.daemon_threads = True
print("listening", flush=True)
server.serve_forever()
