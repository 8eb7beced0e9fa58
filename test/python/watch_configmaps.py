#!/usr/bin/env python3
"""Follow the configmaps of one namespace with the Kubernetes Python client, as a careful
controller does: list, then watch from the list's resourceVersion; after the stream ends or
fails, watch again from the last resourceVersion seen; after 410 Gone, list again.

Usage: watch_configmaps.py KUBECONFIG NAMESPACE

Commands on stdin, one per line; each is answered with one JSON line on stdout:
  dump  -> {"state": {name: {"resourceVersion", "uid", "data", "labels"}}, "resourceVersion", "stats"}
  exit  -> the same, then the process exits
"""
import json
import os
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def entry(meta, data):
    return {
        "resourceVersion": meta.get("resourceVersion"),
        "uid": meta.get("uid"),
        "labels": meta.get("labels") or {},
        "data": data or {},
    }


def main():
    kubeconfig, namespace = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    lock = threading.Lock()
    state = {}
    stats = {"lists": 0, "watches": 0, "events": 0, "errors": 0, "expired": 0, "lastError": None}
    current = {"rv": None}

    def dump():
        with lock:
            return json.dumps({"state": state, "resourceVersion": current["rv"], "stats": stats}, sort_keys=True)

    def control():
        for line in sys.stdin:
            cmd = line.strip()
            if not cmd:
                continue
            sys.stdout.write(dump() + "\n")
            sys.stdout.flush()
            if cmd == "exit":
                os._exit(0)
        os._exit(0)

    threading.Thread(target=control, daemon=True).start()

    def relist():
        # The raw JSON, as the watch's raw_object: same field names as the server's.
        resp = v1.list_namespaced_config_map(namespace, _preload_content=False)
        body = json.loads(resp.data)
        fresh = {item["metadata"]["name"]: entry(item["metadata"], item.get("data")) for item in body.get("items") or []}
        with lock:
            state.clear()
            state.update(fresh)
            current["rv"] = body["metadata"]["resourceVersion"]
            stats["lists"] += 1

    while True:
        try:
            if current["rv"] is None:
                relist()
            with lock:
                stats["watches"] += 1
            w = watch.Watch()
            for ev in w.stream(v1.list_namespaced_config_map, namespace,
                               resource_version=current["rv"], timeout_seconds=5):
                kind = ev["type"]
                obj = ev["raw_object"]
                meta = obj.get("metadata") or {}
                with lock:
                    if kind == "BOOKMARK":
                        current["rv"] = meta["resourceVersion"]
                        continue
                    name = meta["name"]
                    if kind == "DELETED":
                        state.pop(name, None)
                    else:
                        state[name] = entry(meta, obj.get("data"))
                    current["rv"] = meta["resourceVersion"]
                    stats["events"] += 1
        except ApiException as e:
            with lock:
                stats["lastError"] = "ApiException %s: %s" % (e.status, e.reason)
                if e.status == 410:
                    stats["expired"] += 1
                    current["rv"] = None
                else:
                    stats["errors"] += 1
            time.sleep(0.2)
        except Exception as e:  # connection refused, reset, cut stream
            with lock:
                stats["errors"] += 1
                stats["lastError"] = "%s: %s" % (type(e).__name__, e)
            time.sleep(0.2)


if __name__ == "__main__":
    main()
