package dualwrite

// RememberedPartitions returns how many partitions c has room for in what
// it remembers, and how many other znodes it remembers.
func RememberedPartitions(c *Client) (partitions, znodes int) {
	c.mem.mu.Lock()
	defer c.mem.mu.Unlock()
	return c.mem.partitions, len(c.mem.znodes)
}
