"""Score a corpus with Dask (dask.distributed) through dspscore's streaming mode.

The path list is read in blocks by the workers (dask.bag.read_text); each block's paths go to
one `dspscore --files-from -` process (stdin, one path per line), whose records (stdout, one
JSON line per path, in order) are written to OUTPUT/part-NNNNN.jsonl. Then

    dspscore merge --order paths.txt OUTPUT/part-*.jsonl   # checks every path has one record
    dspscore merge OUTPUT/part-*.jsonl                     # the order of a directory run

gives the records of an unsharded run, byte for byte (scripts/check-cluster-engines.sh).

    python dspscore-dask.py paths.txt /shared/scores/run1                      # a local cluster
    python dspscore-dask.py --scheduler tcp://head:8786 paths.txt /shared/scores/run1

What goes wrong, and what this script does about it:
- A bad file (unreadable, missing, not audio) is a record with status "error", not a failure:
  --max-failures is high, so dspscore exits 0.
- A dspscore that exits non-zero (crash, killed, usage error), or writes fewer records than it
  was given paths, fails the task, and the task is retried (--retries; a worker that dies is
  replaced and its tasks rerun by the scheduler). A partition's file is written whole to
  part-NNNNN.jsonl.partial and renamed, so a retried or killed task never leaves a short file.
- Paths are passed as bytes, so names that are not UTF-8 reach dspscore unchanged (its records
  carry them escaped, as `dspscore` on the command line does).
- dspscore's standard error (JSON Lines: one error line per failed file, and a summary) goes to
  the worker's stderr; `--log-level warning` leaves only the failures.
- dspscore must be at the same path on every worker (the default resolves it on the client's
  PATH); the records' provenance (version, config_hash) lets `dspscore merge` refuse records from
  another build or configuration.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import dask
import dask.bag as db
from dask.distributed import Client, LocalCluster


def score_partition(lines, index, output, dspscore):
    """Scores one partition's paths with one dspscore process; writes its records to
    output/part-<index>.jsonl atomically and returns (paths, ok, failed, ok audio seconds)."""
    paths = [line.rstrip("\r\n").encode("utf-8", "surrogateescape") for line in lines]
    paths = [p for p in paths if p.strip(b" \t") and not p.strip(b" \t").startswith(b"#")]
    done = subprocess.run(
        [dspscore, "--files-from", "-", "--format", "jsonl", "--max-failures", "1000000000",
         "--log-level", "warning"],
        input=b"".join(p + b"\n" for p in paths), stdout=subprocess.PIPE, check=True)
    records = done.stdout.splitlines(keepends=True)
    if len(records) != len(paths):
        raise RuntimeError(f"partition {index}: {len(paths)} paths but {len(records)} records")
    target = os.path.join(output, f"part-{index:05d}.jsonl")
    with open(target + ".partial", "wb") as f:
        f.writelines(records)
        f.flush()
        os.fsync(f.fileno())
    os.replace(target + ".partial", target)
    parsed = [json.loads(r) for r in records]
    ok = [r for r in parsed if r["status"] == "ok"]
    return len(paths), len(ok), len(parsed) - len(ok), sum(r["duration"] for r in ok)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", help="a text file with one audio path per line")
    parser.add_argument("output", help="a directory for the part-NNNNN.jsonl files, seen by every worker")
    parser.add_argument("--dspscore", default=os.environ.get("DSPSCORE", "dspscore"),
                        help="dspscore on the workers (resolved on the client's PATH to an absolute path)")
    parser.add_argument("--blocksize", default="64KiB",
                        help="bytes of the path list per partition (64 KiB: ~1000 paths)")
    parser.add_argument("--scheduler", help="a dask.distributed scheduler address; default: a local cluster")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="local cluster: worker processes")
    parser.add_argument("--retries", type=int, default=2, help="attempts after a task fails")
    args = parser.parse_args()

    dspscore = os.path.abspath(shutil.which(args.dspscore) or args.dspscore)
    os.makedirs(args.output, exist_ok=True)
    if os.listdir(args.output):  # part files of another run would be merged with this one's
        parser.error(f"{args.output} is not empty")
    if args.scheduler:
        client = Client(args.scheduler)
    else:  # one dspscore per worker process at a time: each scores one file at a time
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None))
    with client:
        lines = db.read_text(args.paths, blocksize=args.blocksize, errors="surrogateescape")
        tasks = [dask.delayed(score_partition, pure=False)(part, i, args.output, dspscore)
                 for i, part in enumerate(lines.to_delayed())]
        results = client.gather(client.compute(tasks, retries=args.retries))
    listed = sum(r[0] for r in results)
    ok = sum(r[1] for r in results)
    failed = sum(r[2] for r in results)
    print(json.dumps({"paths": listed, "ok": ok, "failed": failed, "partitions": len(results),
                      "audio_hours": round(sum(r[3] for r in results) / 3600, 6)}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
