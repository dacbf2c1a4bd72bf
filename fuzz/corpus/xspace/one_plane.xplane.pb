
/device:TPU:0"host0