"""A long-running process's plumbing: logs, metrics, systemd, signals, ports, the data
directory's lock, the disk and the wall clock."""
