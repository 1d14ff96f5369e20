# Golden cases, sourced by tests/golden/run.sh and tools/regen-golden.sh (from
# the repository root, with $HC the hotcold binary) so both run the very same
# commands. Each input gives these expected outputs:
#   CASE.in                 -> CASE.folded       convert --format folded -o -
#                              CASE.report.txt   report
#                              CASE.report.json  report --json
#   CASE.a.in + CASE.b.in   -> CASE.diff.txt     diff
#                              CASE.diff.folded  diff -o -
# Paths are relative, as the report prints its input's name.

# "CASE KIND" for every expected output file, one per line.
golden_list()
{
	for f in tests/golden/*.in; do
		c=$(basename "$f" .in)
		case $c in
		*.b) ;;
		*.a)
			echo "${c%.a} diff.txt"
			echo "${c%.a} diff.folded"
			;;
		*)
			echo "$c folded"
			echo "$c report.txt"
			echo "$c report.json"
			;;
		esac
	done
}

# Write the output of KIND for CASE to stdout; its exit status is hotcold's.
golden_run()
{
	g=tests/golden/$1
	case $2 in
	folded) "$HC" convert "$g.in" --format folded -o - ;;
	report.txt) "$HC" report "$g.in" ;;
	report.json) "$HC" report --json "$g.in" ;;
	diff.txt) "$HC" diff "$g.a.in" "$g.b.in" ;;
	diff.folded) "$HC" diff -o - "$g.a.in" "$g.b.in" ;;
	*) return 99 ;;
	esac
}
