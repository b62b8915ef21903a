// A plain C function the cfa-lite program calls.
int stage_weight(int stage);
