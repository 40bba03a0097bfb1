provider p {
	probe a(int x) : (int y);
};
