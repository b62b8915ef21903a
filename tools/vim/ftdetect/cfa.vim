" cfa-lite sources and headers.
autocmd BufRead,BufNewFile *.cfa,*.hfa setfiletype cfa
