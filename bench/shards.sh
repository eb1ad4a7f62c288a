#!/usr/bin/env bash
# shards.sh - throughput of a sharded sweep per shard against the same sweep unsharded,
# and the per-pod figure behind docs/deploy.md's billion-point example. Runs the batch
# CLI (what each Job pod runs), output to /dev/null, one process at a time.
#
#   bench/shards.sh [path/to/mlsysd]      # default: a Release build in $BENCH_BUILD (/tmp/mlsysd-bench-shards)
#
# 1. STUDY (18,247,680 points: 33 models x 45 accelerators x 3 precisions x batch 1..4096,
#    single_node, CSV of 4 outputs): unsharded, then each of its 16 shards (~1.14M points,
#    so the CLI's ~20 ms start-up is noise); ROUNDS rounds (default 3), interleaved so that
#    load drifts hit both alike. Reports points/s.
# 2. BILLION (the same axes with batch 1..4096 and efficiency geomspace(0.1, 1, 55):
#    1,003,622,400 points): shards 0, 500 and 999 of 1000, i.e. about 1M points each.
# Prints a markdown table.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-}
if [ -z "$BIN" ]; then
  BUILD=${BENCH_BUILD:-/tmp/mlsysd-bench-shards}
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMLSYSD_TESTS=OFF >/dev/null
  cmake --build "$BUILD" -j2 --target mlsysd >/dev/null
  BIN=$BUILD/mlsysd
fi
ROUNDS=${ROUNDS:-3}
models=$(printf '"%s",' BERT_Base BERT_Large DeepSeek_V3 Mixtral_8x7B GPT2 GPT2_Small GPT3 GPT4 Llama2_70B \
  Llama2_7B Llama3_405B Llama3_70B Llama3_8B AlexNet LeNet1 MobileNetV2 EfficientNetB0 MobileNetV2_Alpha0_5 \
  MobileNetV2_Alpha0_5FeatureExtractor ResNet18 ResNet50 YOLOv8_Nano AnomalyDetector DS_CNN WakeVision DLRM \
  Mamba_130M Mamba_2_8B StableDiffusion_v1_5 OpenVLA_7B Octo_Base DiffusionPolicy_PushT ACT_ALOHA)
hw=$(printf '"%s",' A100 B200 Cerebras_CS3 DMatrix_Corsair GB200_NVL72 Gaudi2 Gaudi3 Graphcore_GC200 Groq_LPU \
  H100 H200 IntelSGX MI250X MI300X ReferenceCPU T4 TPUv1 TPUv2 TPUv3 TPUv4 TPUv5p TPUv6 Trainium2 \
  Untether_speedAI240 V100 V100_PCIe DGX_Spark MacBookM3Max AppleM2 Pixel8 Snapdragon8Gen3 iPhone15Pro Coral \
  DriveThor GenericServer JetsonAGXOrin JetsonOrinNX JetsonOrinNano NUC_Movidius RoboTaxi ESP32_S3 HimaxWE1 \
  LockstepSafetyMCU_Reference OuraRing nRF52840)
axes() {  # $1: batch stop, $2: extra axes
  printf '{"solver":"single_node","format":"csv","outputs":["latency","throughput","bottleneck","feasible"],'
  printf '"axes":[{"input":"model","values":[%s]},{"input":"hardware","values":[%s]},' "${models%,}" "${hw%,}"
  printf '{"input":"precision","values":["fp32","fp16","int8"]},'
  printf '{"input":"batch_size","range":{"start":1,"stop":%s,"step":1}}%s]}' "$1" "$2"
}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
axes 4096 "" >"$TMP/study.json"
axes 4096 ',{"input":"efficiency","geomspace":{"start":0.1,"stop":1,"count":55}}' >"$TMP/billion.json"

# One run: "<points/s of wall time> <points/s of CPU time>". CPU time (user + sys) is what a
# pod with a dedicated core gets; on this shared machine wall time also counts waiting.
run() {
  local n=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$TMP/t" "$@" >/dev/null
  awk -v n="$n" '{printf "%.0f %.0f\n", n/$1, n/($2+$3)}' "$TMP/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -v c="$1" '{print $c}' "$2"; }
stats() { # file, column: "median (min-max)"
  printf '%s (%s–%s)' "$(col "$2" "$1" | median)" "$(col "$2" "$1" | sort -n | head -1)" "$(col "$2" "$1" | sort -n | tail -1)"
}

P=18247680
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
: >"$TMP/whole"; : >"$TMP/shard"
for r in $(seq 1 "$ROUNDS"); do
  run $P "$BIN" sweep --in "$TMP/study.json" >>"$TMP/whole"
  for i in $(seq 0 15); do
    run $(( P / 16 + (i < P % 16) )) "$BIN" sweep --in "$TMP/study.json" --shard "$i/16" >>"$TMP/shard"
  done
  echo "round $r done" >&2
done
B=1003622400
: >"$TMP/big"
for i in 0 500 999; do
  run $(( B / 1000 + (i < B % 1000) )) "$BIN" sweep --in "$TMP/billion.json" --shard "$i/1000" >>"$TMP/big"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
ratio() { echo "$(col "$1" "$TMP/shard" | median) $(col "$1" "$TMP/whole" | median)" | awk '{printf "%.3f", $1/$2}'; }
echo "| what (single_node, CSV of 4 outputs, \`mlsysd sweep > /dev/null\`) | points/s of CPU time: median (range) | points/s of wall time: median (range) |"
echo "|---|---|---|"
echo "| unsharded, $P points ($ROUNDS runs) | $(stats "$TMP/whole" 2) | $(stats "$TMP/whole" 1) |"
echo "| one of 16 shards of it, ~1,140,480 points each ($((16 * ROUNDS)) runs) | $(stats "$TMP/shard" 2) | $(stats "$TMP/shard" 1) |"
echo "| per-shard / unsharded (medians) | $(ratio 2) | $(ratio 1) |"
echo "| one of 1000 shards of the $B-point study (shards 0, 500, 999) | $(stats "$TMP/big" 2) | $(stats "$TMP/big" 1) |"
