nan 0.5
inf 1
