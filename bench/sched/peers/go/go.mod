module schedbench

go 1.21
