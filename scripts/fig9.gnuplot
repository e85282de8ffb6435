# SPDX-License-Identifier: GPL-2.0
# The Fig. 9 plot: ns per cancel+set pair against outstanding timers.
# Run as: gnuplot -e "dir='bench/results'" scripts/fig9.gnuplot
set terminal pngcairo size 900,600 noenhanced
set output dir.'/fig9.png'
set logscale xy
set xlabel 'outstanding timers n'
set ylabel 'ns per cancel+set pair'
set key left top
set grid
files = system('ls '.dir.'/fig9-*.dat')
plot for [f in files] f using 1:2 with linespoints \
	title system('basename '.f.' .dat | sed s/^fig9-//')
