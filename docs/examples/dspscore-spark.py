"""Score a corpus with Spark through dspscore's streaming mode (RDD.pipe).

Each partition's paths go to one `dspscore --files-from -` process on an executor (stdin, one
path per line) and its records come back on stdout, one JSON line per path, in the partition's
order; saveAsTextFile writes each partition's records to one part-NNNNN file. Then

    dspscore merge --order paths.txt OUTPUT/part-*     # checks every path has one record
    dspscore merge OUTPUT/part-*                       # the order of a directory run

gives the records of an unsharded run, byte for byte (scripts/check-cluster-engines.sh).

    spark-submit dspscore-spark.py paths.txt hdfs:///scores/run1 [--dspscore /opt/bin/dspscore]
    python dspscore-spark.py --master 'local[2,2]' paths.txt /tmp/run1   # pyspark from PyPI

What goes wrong, and what this script does about it:
- A bad file (unreadable, missing, not audio) is a record with status "error", not a failure:
  --max-failures is high, so dspscore exits 0 and the stage goes on.
- A dspscore that exits non-zero (crash, killed, usage error) fails the task: pipe() is called
  with checkCode=True. Its default, False, would keep the records written before the exit and
  silently lose the rest of the partition. Spark retries the task (spark.task.maxFailures; in
  local mode `local[N,F]` allows F attempts) and the output committer keeps only the records of
  the attempt that succeeded, so a partition is never written twice or in part.
- pipe() starts the command with only the environment it is given (none by default: PATH then
  falls back to /bin:/usr/bin), so dspscore is named by an absolute path, which must be the same
  on every executor; the records' provenance (version, config_hash) lets `dspscore merge`
  refuse records from another build or configuration.
- dspscore's standard error (JSON Lines: one error line per failed file, and a summary) goes to
  the executor's stderr log; `--log-level warning` leaves only the failures.
- Paths are read as UTF-8 text (Hadoop's TextInputFormat): a name that is not valid UTF-8 does not
  survive it. Score such files with shards (docs/cluster.md) or the Dask recipe, which passes
  bytes.
"""
import argparse
import json
import os
import shlex
import shutil
import sys

from pyspark import SparkConf, SparkContext


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", help="a text file with one audio path per line")
    parser.add_argument("output", help="a directory (must not exist) for the part-NNNNN files")
    parser.add_argument("--dspscore", default=os.environ.get("DSPSCORE", "dspscore"),
                        help="dspscore on the executors (resolved on the driver's PATH to an absolute path)")
    parser.add_argument("--partitions", type=int, default=256, help="minimum number of partitions")
    parser.add_argument("--master", help="e.g. local[2,2]; default: spark-submit's --master")
    args = parser.parse_args()

    dspscore = os.path.abspath(shutil.which(args.dspscore) or args.dspscore)
    command = shlex.join([dspscore, "--files-from", "-", "--format", "jsonl",
                          "--max-failures", "1000000000", "--log-level", "warning"])
    conf = SparkConf().setAppName("dspscore")
    if args.master:
        conf.setMaster(args.master)
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    try:
        paths = sc.textFile(args.paths, minPartitions=args.partitions)
        records = paths.pipe(command, env={"PATH": os.defpath, "LANG": "C.UTF-8"}, checkCode=True)
        records.saveAsTextFile(args.output)

        # A summary from the saved records: `records` is not cached, so another action on it
        # would score the corpus again.
        saved = sc.textFile(args.output).map(json.loads)
        by_status = dict(saved.map(lambda r: (r["status"], (1, r["duration"])))
                         .reduceByKey(lambda a, b: (a[0] + b[0], a[1] + b[1])).collect())
        errors = dict(saved.filter(lambda r: r["status"] == "error")
                      .map(lambda r: (r["error"]["kind"], 1)).reduceByKey(lambda a, b: a + b).collect())
        listed = paths.filter(lambda p: p.strip() and not p.strip().startswith("#")).count()
    finally:
        sc.stop()
    ok, ok_seconds = by_status.get("ok", (0, 0.0))
    failed = by_status.get("error", (0, 0.0))[0]
    print(json.dumps({"paths": listed, "ok": ok, "failed": failed, "errors": errors,
                      "audio_hours": round(ok_seconds / 3600, 6)}, sort_keys=True))
    if ok + failed != listed:
        print(f"dspscore-spark: {listed} paths but {ok + failed} records", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
