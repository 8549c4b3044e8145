"""Sequential-NIAH (papers/sequential-niah.md): ordered needles shuffled into long texts."""
