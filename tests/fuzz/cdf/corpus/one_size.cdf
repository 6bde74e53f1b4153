# one size
1500 1
