#!/usr/bin/env python3
# A stand-in for Grafana Pyroscope's HTTP ingest API, written from its
# documentation (grafana.com/docs/pyroscope, "Server HTTP API": POST /ingest,
# query name/from/until/format/sampleRate/spyName/units/aggregationType, the
# pprof as the multipart form part "profile"; X-Scope-OrgID for the tenant).
# It is NOT Pyroscope: it checks the request strictly, keeps each profile and
# answers as told. Loopback only.
#
#   pyroscope_stub.py PORT OUTDIR
#
# OUTDIR/mode (re-read per request): "200", or "CODE N" = answer CODE to the
# next N valid requests, then 200 (the count is kept in OUTDIR/mode).
# OUTDIR/marker: optional, a string looked for in the profile's string table.
# OUTDIR/require: optional lines "Header: value" every request must carry (else 401).
# OUTDIR/log.jsonl: one line per request: status, name, app, labels, from,
# until, params, bytes, file (the profile as received), error; from the
# pprof: sample_types, label_keys (of the samples), tids (distinct), and
# whether a "sample_type_config" part came (stc: its JSON, checked against
# Pyroscope's SampleTypeConfig: keys are sample types of the profile, fields
# units/display-name/aggregation/cumulative/sampled, units from its fixed set).
import email.parser
import gzip
import threading
import http.server
import json
import os
import re
import sys
import urllib.parse

PORT, OUT = int(sys.argv[1]), sys.argv[2]
KNOWN = {"name", "from", "until", "format", "sampleRate", "spyName", "units", "aggregationType"}
NAME = re.compile(r"^([A-Za-z0-9_.:/-]+)\{((?:[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.:/-]+)"
                  r"(?:,[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.:/-]+)*)?\}$")
seq = 0
seq_lock = threading.Lock()
STC_FIELDS = {"units", "display-name", "aggregation", "cumulative", "sampled"}
STC_UNITS = {"samples", "objects", "goroutines", "bytes", "lock_nanoseconds", "lock_samples"}


def pb_fields(b):
    """(field, wire, value) of one protobuf message: value is int or bytes."""
    i, out = 0, []

    def varint():
        nonlocal i
        x = s = 0
        while True:
            c = b[i]
            i += 1
            x |= (c & 0x7f) << s
            s += 7
            if not c & 0x80:
                return x
    while i < len(b):
        key = varint()
        f, w = key >> 3, key & 7
        if w == 0:
            out.append((f, w, varint()))
        elif w == 2:
            n = varint()
            out.append((f, w, b[i:i + n]))
            i += n
        elif w == 1:
            i += 8
        elif w == 5:
            i += 4
        else:
            raise ValueError("wire type %d" % w)
    return out


def pprof_summary(raw):
    top = pb_fields(raw)
    strs = [v.decode("utf-8", "replace") for f, w, v in top if f == 6]
    types, keys, tids, n, t_ns = [], set(), set(), 0, 0
    for f, w, v in top:
        if f == 9:	# time_nanos: which interval, when two start in one second
            t_ns = v
        elif f == 1:
            t = dict((ff, vv) for ff, ww, vv in pb_fields(v))
            types.append(strs[t.get(1, 0)])
        elif f == 2:
            n += 1
            for ff, ww, vv in pb_fields(v):
                if ff != 3:
                    continue
                lab = dict((a, c) for a, bb, c in pb_fields(vv))
                k = strs[lab.get(1, 0)]
                keys.add(k)
                if k == "tid":
                    tids.add(lab.get(4, 0))
    return {"sample_types": types, "label_keys": sorted(keys), "tids": len(tids), "samples": n,
            "time_ms": t_ns // 1000000, "strings": strs}


def check_stc(text, types):
    cfg = json.loads(text)
    if not isinstance(cfg, dict) or not cfg:
        return "sample_type_config: not an object"
    for k, v in cfg.items():
        if k not in types:
            return "sample_type_config: %r is no sample type of the profile %s" % (k, types)
        if not isinstance(v, dict) or set(v) - STC_FIELDS:
            return "sample_type_config[%r]: fields %s" % (k, sorted(v))
        if v.get("units") not in STC_UNITS or v.get("aggregation", "sum") not in ("sum", "average"):
            return "sample_type_config[%r]: units/aggregation %r" % (k, v)
    return None


def mode_answer():
    path = os.path.join(OUT, "mode")
    try:
        words = open(path).read().split()
    except FileNotFoundError:
        return 200
    if len(words) == 2 and int(words[1]) > 0:
        with open(path + ".tmp", "w") as f:
            f.write("%s %d\n" % (words[0], int(words[1]) - 1))
        os.rename(path + ".tmp", path)
        return int(words[0])
    return 200 if len(words) == 2 else int(words[0])


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, rec):
        rec["status"] = status
        with open(os.path.join(OUT, "log.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        body = (rec.get("error") or "ok").encode() + b"\n"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(405, {"error": "GET"})

    def do_POST(self):
        global seq
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        rec = {"headers": {k: v for k, v in self.headers.items()
                           if k.lower() in ("authorization", "x-scope-orgid", "user-agent")}}
        u = urllib.parse.urlsplit(self.path)
        if u.path != "/ingest":
            return self.answer(404, dict(rec, error="path " + u.path))
        try:
            q = urllib.parse.parse_qs(u.query, keep_blank_values=True, strict_parsing=True)
        except ValueError as e:
            return self.answer(400, dict(rec, error="query: %s" % e))
        if set(q) - KNOWN or any(len(v) != 1 for v in q.values()):
            return self.answer(400, dict(rec, error="query keys %s" % sorted(q)))
        q = {k: v[0] for k, v in q.items()}
        rec["params"] = q
        m = NAME.match(q.get("name", ""))
        if not m:
            return self.answer(400, dict(rec, error="name %r" % q.get("name")))
        rec["name"], rec["app"] = q["name"], m.group(1)
        rec["labels"] = dict(kv.split("=", 1) for kv in (m.group(2) or "").split(",") if kv)
        if q.get("format") != "pprof":
            return self.answer(400, dict(rec, error="format %r" % q.get("format")))
        if not re.fullmatch(r"\d+", q.get("from", "")) or not re.fullmatch(r"\d+", q.get("until", "")):
            return self.answer(400, dict(rec, error="from/until not integers"))
        rec["from"], rec["until"] = int(q["from"]), int(q["until"])
        if rec["until"] < rec["from"]:
            return self.answer(400, dict(rec, error="until < from"))
        try:
            for line in open(os.path.join(OUT, "require")):
                k, v = line.rstrip("\n").split(": ", 1)
                if self.headers.get(k) != v:
                    return self.answer(401, dict(rec, error="header " + k))
        except FileNotFoundError:
            pass
        ctype = self.headers.get("Content-Type", "")
        if not ctype.startswith("multipart/form-data"):
            return self.answer(400, dict(rec, error="content type " + ctype))
        msg = email.parser.BytesParser().parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
        parts = {p.get_param("name", header="content-disposition"): p.get_payload(decode=True)
                 for p in (msg.get_payload() if msg.is_multipart() else [])}
        if "profile" not in parts or not parts["profile"]:
            return self.answer(400, dict(rec, error="no multipart part 'profile': %s" % sorted(parts)))
        data = parts["profile"]
        raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        # a pprof Profile starts with field 1 (sample_type, length-delimited): tag 0x0a
        if raw[:1] != b"\x0a":
            return self.answer(400, dict(rec, error="not a pprof"))
        try:
            summ = pprof_summary(raw)
        except (ValueError, IndexError) as e:
            return self.answer(400, dict(rec, error="pprof: %s" % e))
        strings = summ.pop("strings")
        rec.update(summ)
        try:	# OUTDIR/marker: a string no pushed profile may hold (a command line)
            marker = open(os.path.join(OUT, "marker")).read().strip()
            rec["marker_in_strings"] = any(marker in x for x in strings)
        except FileNotFoundError:
            pass
        if "sample_type_config" in parts:
            try:
                err = check_stc(parts["sample_type_config"].decode(), summ["sample_types"])
            except ValueError as e:
                err = "sample_type_config: %s" % e
            if err:
                return self.answer(400, dict(rec, error=err))
            rec["stc"] = json.loads(parts["sample_type_config"].decode())
        status = mode_answer()
        # unique across restarts of this stub (the test restarts it) and
        # across its request threads: a later run must not overwrite a
        # profile an earlier log line points at
        with seq_lock:
            seq += 1
            n = seq
        path = os.path.join(OUT, "p%d-%04d-%s.pb.gz" % (os.getpid(), n, rec["labels"].get("kind", "x")))
        with open(path, "wb") as f:
            f.write(data)
        rec.update(file=path, bytes=len(data))
        self.answer(status, rec)


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
