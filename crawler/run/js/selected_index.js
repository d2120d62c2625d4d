function(){return this.selectedIndex}
