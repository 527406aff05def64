.space -1
