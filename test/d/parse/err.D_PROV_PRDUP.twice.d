provider p {
	probe a();
	probe a(int);
};
