# Sourced by the shell tests that run ampbench end to end: write_tiny_config FILE RUNS_DIR writes a
# config that trains a tiny MLP in fp32 and bf16 on the CPU in well under a second, into RUNS_DIR.
write_tiny_config() {
  cat > "$1" <<JSON
{"name": "tiny", "model": {"type": "mlp", "options": {"width": 16, "depth": 1}},
 "data": {"synthetic": {"train_samples": 64, "val_samples": 32, "shape": [3, 4, 4], "classes": 4}},
 "train": {"epochs": 2, "batch_size": 16}, "precision": {"modes": ["fp32", "bf16"]}, "device": "cpu",
 "output": {"dir": "$2"}}
JSON
}
