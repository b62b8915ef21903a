" Vim syntax file for cfa-lite: C, plus the extension keywords.
if exists("b:current_syntax")
  finish
endif
runtime! syntax/c.vim
unlet! b:current_syntax

syn keyword cfaStructure   thread coroutine monitor
syn keyword cfaStorage     mutex
syn keyword cfaStatement   waitfor timeout suspend resume corun cofor
syn keyword cfaConditional when or
syn keyword cfaType        processor cluster condition Duration io_future
syn keyword cfaFunction    wait signal signal_block yield park unpark join new delete migrate
syn match   cfaTimeLiteral "\<\d\+\(\.\d\+\)\=`\(ns\|us\|ms\|s\)\>"

hi def link cfaStructure   Structure
hi def link cfaStorage     StorageClass
hi def link cfaStatement   Statement
hi def link cfaConditional Conditional
hi def link cfaType        Type
hi def link cfaFunction    Function
hi def link cfaTimeLiteral Number

let b:current_syntax = "cfa"
