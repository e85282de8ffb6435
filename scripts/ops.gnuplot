# SPDX-License-Identifier: GPL-2.0
# Plots of bench/schemes_bench.c's start, stop and tick against n for
# every scheme (ops-*.dat).  Run as:
#   gnuplot -e "dir='bench/results'" scripts/ops.gnuplot
set terminal pngcairo size 900,600 noenhanced
set logscale xy
set grid
set key left top
files = system('ls '.dir.'/ops-*.dat')
name(f) = system('basename '.f.' .dat | sed s/^ops-//')
set xlabel 'pending entries n'
do for [col in '2 3 4'] {
	what = col eq '2' ? 'start' : col eq '3' ? 'stop' : 'tick'
	set output dir.'/ops-'.what.'.png'
	set ylabel 'ns per '.what
	set title what.' against n, every scheme'
	plot for [f in files] f using 1:(column(col+0)) with linespoints \
		title name(f)
}
