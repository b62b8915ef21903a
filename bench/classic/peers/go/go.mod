module classicbench

go 1.21
