#!/usr/bin/env bash
# What `recommend --unknown-interruptions` does with spot offers the catalog has no interruption
# data for (docs/cross-device.md, "Recommender"). One AWS spot machine gets a record (the "15-20%"
# band, as the AWS Spot Advisor would give it); then:
#   - exclude: only that machine's spot offers are ranked, at their band's cost;
#   - 15-20% assumed for the others: every other spot offer costs exactly what the recorded one
#     does per epoch-hour (the same band, so the same interruption rate), marked assumed in JSON;
#   - never (the default): the others are ranked at no interruption cost, marked unknown.
# Usage: spot_without_interruption_data.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"
cat >"$dir/interruptions.csv" <<'CSV'
provider,instance,region,kind,frequency_band,max_lifetime_hours,observed_at,source
aws,g4dn.xlarge,*,spot,15-20%,0,2026-11-25,effect test
CSV
"$bin" catalog import "$dir/interruptions.csv" --format interruptions >/dev/null
ask() { "$bin" recommend mnist_mlp --cloud aws --kind spot --top 0 --csv "$@"; }

# exclude: one machine left, its offers at the band's cost.
ask --unknown-interruptions exclude >"$dir/exclude.csv"
machines=$(tail -n +2 "$dir/exclude.csv" | cut -d, -f2 | sort -u)
[ "$machines" = '"g4dn.xlarge"' ] ||
  { echo "exclude ranked $machines, expected only g4dn.xlarge" >&2; exit 1; }
overhead=$(tail -n +2 "$dir/exclude.csv" | head -1 | awk -F, '{ print $13 }')
awk -v o="$overhead" 'BEGIN { exit !(o > 0) }' ||
  { echo "g4dn.xlarge's preemption overhead is $overhead, expected > 0" >&2; exit 1; }
echo "exclude: only g4dn.xlarge ranked, preemption overhead $overhead"

# The same band assumed, and the default: the CSV's last two columns are each offer's
# interruptions per hour and where that rate comes from (known, assumed or unknown).
rate=$(awk 'BEGIN { printf "%.6g", -log(1 - 0.175) / 730 }')  # the band's middle, 730-hour month
ask --unknown-interruptions 15-20% >"$dir/assumed.csv"
ask >"$dir/never.csv"
check() {  # CSV, the rate and source expected of g4dn.xlarge, and of every other offer
  awk -F, -v kr="$2" -v ks="$3" -v or="$4" -v os="$5" '
    NR == 1 { next }
    { want_r = $2 == "\"g4dn.xlarge\"" ? kr : or; want_s = $2 == "\"g4dn.xlarge\"" ? ks : os
      if ($(NF - 1) != want_r || $NF != want_s) { print FILENAME ": " $0 > "/dev/stderr"; bad = 1 } n++ }
    END { if (bad || n < 2) exit 1; print n " offers" }' "$1"
}
assumed=$(check "$dir/assumed.csv" "$rate" known "$rate" assumed)
never=$(check "$dir/never.csv" "$rate" known 0 unknown)
echo "15-20% assumed: $assumed at $rate an hour; never: $never, the unrecorded at 0"
