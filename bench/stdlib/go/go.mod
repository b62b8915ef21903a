module cfa-lite/bench/stdlib/go

go 1.21
