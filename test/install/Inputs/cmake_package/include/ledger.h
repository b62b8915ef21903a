/* libledger.so: a cfa-lite shared library with a plain C interface. */
#ifndef LEDGER_H
#define LEDGER_H
long ledger_hand_out(long weight); /* records it, returns it */
long ledger_total(void);
#endif
