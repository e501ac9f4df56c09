func main() {
	fmt.Println("hi")
}
