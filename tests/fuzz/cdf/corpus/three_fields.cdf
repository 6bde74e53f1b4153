10 0.5 extra
