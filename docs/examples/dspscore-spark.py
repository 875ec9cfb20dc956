"""Score a corpus with Spark through dspscore's streaming mode (RDD.pipe).

Each partition's paths go to one `dspscore --files-from -` process on the executor (stdin, one
path per line) and its records come back on stdout, one JSON line per path, in order. dspscore
must be installed on every executor. --max-failures is high because pipe() raises when the
process exits non-zero, and a bad file must not fail the stage: failed files are records with
status "error".

    spark-submit dspscore-spark.py paths.txt hdfs:///scores/run1
"""
import json
import sys

from pyspark import SparkContext

paths_file, output = sys.argv[1], sys.argv[2]
sc = SparkContext(appName="dspscore")
paths = sc.textFile(paths_file, minPartitions=256)
records = paths.pipe("dspscore --files-from - --format jsonl --max-failures 1000000000")
records.saveAsTextFile(output)

# A quick look without collecting the records: files ok / failed and audio hours.
parsed = records.map(json.loads)
ok = parsed.filter(lambda r: r["status"] == "ok")
print("ok:", ok.count(), "failed:", parsed.count() - ok.count(),
      "audio hours:", ok.map(lambda r: r["duration"]).sum() / 3600)
