# SPDX-License-Identifier: GPL-2.0
# Plot of bench/schemes_bench.c's bookkeeping per expired entry against the
# mean interval T, Schemes 6 and 7 (bookkeeping-*.dat).  Run as:
#   gnuplot -e "dir='bench/results'" scripts/bookkeeping.gnuplot
set terminal pngcairo size 900,600 noenhanced
set logscale xy
set grid
set key left top
set output dir.'/bookkeeping.png'
set title 'bookkeeping per expired entry against the mean interval T'
set xlabel 'mean interval T (ticks)'
set ylabel 'per expired entry'
plot dir.'/bookkeeping-6.dat' using 1:2 with linespoints \
		title 'Scheme 6 (256 slots): ns', \
	dir.'/bookkeeping-6.dat' using 1:($3 > 0 ? $3 : NaN) \
		with linespoints title 'Scheme 6: slot visits before due', \
	dir.'/bookkeeping-7.dat' using 1:2 with linespoints \
		title 'Scheme 7 (64/64/64): ns', \
	dir.'/bookkeeping-7.dat' using 1:4 with linespoints \
		title 'Scheme 7: migrations', \
	dir.'/bookkeeping-6.dat' using 1:($1 / 256) with lines dashtype 2 \
		title 'T/M (M = 256)'
