# SPDX-License-Identifier: GPL-2.0
# The cascade part's distributions, one line per module and scheme at the
# largest n: the share of samples at least as large as x, log-log, from
# dir/cascade-WHAT-*.dat (x, share; a title row first).
# Run as: gnuplot -e "dir='bench/results'; what='probe'; xlabel='...';
#         ylabel='...'" scripts/cascade.gnuplot
set terminal pngcairo size 900,600 noenhanced
set output dir.'/cascade-'.what.'.png'
set logscale xy
set xlabel xlabel
set ylabel ylabel
set key left bottom
set grid
set key autotitle columnhead
files = system('ls '.dir.'/cascade-'.what.'-*.dat')
plot for [f in files] f using 1:2 with linespoints lw 2
