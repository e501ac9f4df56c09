func main() {
	if ok {
		if again {
			do()
		}
	}
}
