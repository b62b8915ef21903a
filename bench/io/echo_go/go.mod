module cfa-lite/bench/io/echo_go

go 1.21
