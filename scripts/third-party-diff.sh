#!/usr/bin/env bash
# third-party-diff.sh: the patches swarm carries in third_party/ (x/vt,
# Bubble Tea), as hunks against the upstream module they were copied from,
# read from the Go module cache (downloaded there if missing).
#
#   scripts/third-party-diff.sh [--summary] [NAME...]
#       every hunk of each copy (NAME: vt, bubbletea; default: all), the
#       patch its `swarm patch N` marker names, and the hunks with no
#       marker; --summary lists the hunks without their text
#   scripts/third-party-diff.sh --onto VERSION [--write DIR] NAME
#       also tries each hunk on another release of the upstream module:
#       which apply as they are, which with an offset or fuzz, and which
#       conflict; --write DIR makes the rebased copy in DIR (a new
#       directory): that release's files, the patched ones merged with
#       `git merge-file` (conflicts left marked), swarm's own files
#       (SWARM.md, swarm_*_test.go, testdata/fuzz) copied over
#
# The upstream version is the one go.mod requires (the copy replaces it).
# A bump: run with --onto NEW --write DIR, resolve what conflicts, move DIR
# to third_party/NAME, set the version in go.mod (the patch numbers stay),
# run the copy's tests (cd third_party/NAME && go test ./...) and swarm's,
# and record the new base in its SWARM.md. Needs diff, patch (for --onto)
# and git.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

summary=0 onto="" write=""
names=()
while [ $# -gt 0 ]; do
	case "$1" in
	--summary) summary=1 ;;
	--onto) onto=${2:?--onto needs a version}; shift ;;
	--write) write=${2:?--write needs a directory}; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "third-party-diff.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) names+=("$1") ;;
	esac
	shift
done
[ ${#names[@]} -gt 0 ] || names=(vt bubbletea)
if [ -n "$write" ] && [ -z "$onto" ]; then
	echo "third-party-diff.sh: --write needs --onto VERSION" >&2; exit 2
fi
if [ -n "$onto" ] && [ ${#names[@]} -ne 1 ]; then
	echo "third-party-diff.sh: --onto takes one NAME" >&2; exit 2
fi
if [ -n "$write" ] && [ -e "$write" ] && [ -n "$(ls -A "$write")" ]; then
	echo "third-party-diff.sh: $write is not empty" >&2; exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# moddir MODULE VERSION: the module's directory in the module cache.
moddir() {
	local out
	out=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$1@$2") || {
		echo "third-party-diff.sh: cannot download $1@$2" >&2; return 1; }
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$out"
}

# swarms_own FILE: whether FILE (relative to a copy) is swarm's, not upstream's.
swarms_own() {
	case "$1" in
	SWARM.md | swarm_*) return 0 ;;
	testdata/fuzz/FuzzPatch* | testdata/fuzz/FuzzScanPlainCsi*) return 0 ;;
	esac
	return 1
}

# files DIR: the regular files under DIR, relative, sorted.
files() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# hunks: reads a unified diff of one file, prints one record per hunk:
# "START|PATCH|FIRST-LINE-OF-THE-HUNK" (| standing for \x1f) where PATCH is the number
# (or numbers) of the `swarm patch N` markers on added lines, "-" for a
# marker without a number, "" for none; then the hunk's lines. Records are
# separated by a line "\f".
hunks() {
	awk '
	function flush() {
		if (n == 0) return
		printf "%s\037%s\037%s\n", start, patch, head
		for (i = 1; i <= n; i++) print body[i]
		print "\f"
		n = 0
	}
	/^@@ / { flush(); head = $0; start = $3; sub(/^\+/, "", start); sub(/,.*/, "", start); patch = ""; next }
	/^(---|\+\+\+) / { next }
	{
		body[++n] = $0
		if ($0 ~ /^\+/ && $0 ~ /swarm patch/) {
			# "swarm patch 4", "swarm patch 1 and 7", "swarm patch 8, 10 and 13"
			if (match($0, /swarm patch [0-9]+((, | and )[0-9]+)*/)) {
				nums = substr($0, RSTART + 12, RLENGTH - 12)
				gsub(/,| and /, " ", nums)
				k = split(nums, ps, / +/)
				for (q = 1; q <= k; q++) {
					if (patch == "" || patch == "-") patch = ps[q]
					else if (index(" " patch " ", " " ps[q] " ") == 0) patch = patch " " ps[q]
				}
			} else if (patch == "") patch = "-"
		}
	}
	END { flush() }'
}

status=0
for name in "${names[@]}"; do
	copy=third_party/$name
	[ -f "$copy/go.mod" ] || { echo "third-party-diff.sh: no copy $copy" >&2; exit 2; }
	mod=$(sed -n 's/^module //p' "$copy/go.mod")
	ver=$(go list -m -f '{{.Version}}' "$mod")
	base=$(moddir "$mod" "$ver")
	echo "== $name: $mod $ver ($base)"

	files "$base" >"$tmp/base.files"
	files "$copy" >"$tmp/copy.files"
	own=() missing=()
	while read -r f; do
		if ! grep -qxF "$f" "$tmp/base.files"; then
			if swarms_own "$f"; then own+=("$f"); else missing+=("$f"); fi
		fi
	done <"$tmp/copy.files"
	[ ${#own[@]} -eq 0 ] || echo "swarm's own files: ${own[*]}"
	if [ ${#missing[@]} -gt 0 ]; then
		echo "files upstream does not have (mark them swarm's or drop them): ${missing[*]}"
		status=1
	fi

	total=0 unmarked=0 nfiles=0 conflicts=0
	declare -A perpatch=()
	while read -r f; do
		grep -qxF "$f" "$tmp/copy.files" || continue
		cmp -s "$base/$f" "$copy/$f" && continue
		nfiles=$((nfiles + 1))
		diff -u --label "a/$f" --label "b/$f" "$base/$f" "$copy/$f" >"$tmp/file.diff" || true
		hunks <"$tmp/file.diff" >"$tmp/hunks"
		verdicts=()
		if [ -n "$onto" ]; then
			newdir=${newdir:-$(moddir "$mod" "$onto")}
			if [ -f "$newdir/$f" ]; then
				cp "$newdir/$f" "$tmp/target"
				out=$(patch --dry-run -N -p1 "$tmp/target" <"$tmp/file.diff" 2>&1 || true)
			else
				out="file gone"
			fi
			h=0
			while IFS= read -r _; do
				h=$((h + 1))
				if [ "$out" = "file gone" ]; then
					v="CONFLICTS (the file is gone in $onto)"
				elif grep -q "^Hunk #$h FAILED" <<<"$out"; then
					v="CONFLICTS"
				elif line=$(grep "^Hunk #$h succeeded" <<<"$out"); then
					v="applies (${line#*succeeded })"
				else
					v="applies"
				fi
				verdicts+=("$v")
			done < <(grep -a $'^[0-9]*\x1f' "$tmp/hunks")
		fi
		h=0
		while IFS= read -r -d $'\f' rec; do
			rec=${rec#$'\n'}
			[ -n "$rec" ] || continue
			IFS=$'\x1f' read -r start patch head <<<"${rec%%$'\n'*}"
			text=${rec#*$'\n'}
			h=$((h + 1)) total=$((total + 1))
			case "$patch" in
			"") label="UNMARKED"; unmarked=$((unmarked + 1)) ;;
			-) label="marked, no patch number"; unmarked=$((unmarked + 1)) ;;
			*) label="patch $patch"; for p in $patch; do perpatch[$p]=$((${perpatch[$p]:-0} + 1)); done ;;
			esac
			verdict=""
			if [ -n "$onto" ]; then
				verdict=" -> $onto: ${verdicts[$((h - 1))]}"
				case "${verdicts[$((h - 1))]}" in CONFLICTS*) conflicts=$((conflicts + 1)) ;; esac
			fi
			echo "-- $f:$start [$label]$verdict"
			if [ $summary -eq 0 ]; then
				echo "$head"
				printf '%s\n' "$text"
			fi
		done <"$tmp/hunks"
	done <"$tmp/base.files"

	list=""
	for p in $(printf '%s\n' "${!perpatch[@]}" | sort -n); do list+=" $p:${perpatch[$p]}"; done
	echo "== $name: $total hunks in $nfiles files; by patch (number:hunks):${list:- none}; unmarked: $unmarked"
	[ $unmarked -eq 0 ] || status=1
	if [ -n "$onto" ]; then
		echo "== $name onto $onto: $conflicts of $total hunks conflict"
	fi
	unset perpatch

	if [ -n "$write" ]; then
		mkdir -p "$write"
		files "$newdir" >"$tmp/new.files"
		while read -r f; do
			carried=0
			if grep -qxF "$f" "$tmp/base.files"; then
				grep -qxF "$f" "$tmp/copy.files" && carried=1
			else
				# New upstream: carry code and test data, not CI or docs.
				case "$f" in .* | */.* | *.md | Taskfile.yaml) ;; *) carried=1 ;; esac
			fi
			[ $carried -eq 1 ] || continue
			mkdir -p "$write/$(dirname "$f")"
			if [ -f "$copy/$f" ] && ! cmp -s "$base/$f" "$copy/$f"; then
				cp "$copy/$f" "$write/$f"
				n=0
				git merge-file -L "swarm's copy" -L "$ver" -L "$onto" "$write/$f" "$base/$f" "$newdir/$f" || n=$?
				[ $n -eq 0 ] || echo "$write/$f: $n conflicting regions (marked)"
			else
				cp "$newdir/$f" "$write/$f"
			fi
			chmod u+w "$write/$f"
		done <"$tmp/new.files"
		for f in "${own[@]}"; do
			mkdir -p "$write/$(dirname "$f")"
			cp "$copy/$f" "$write/$f"
		done
		echo "== $name: the copy rebased onto $onto is in $write"
	fi
done
exit $status
